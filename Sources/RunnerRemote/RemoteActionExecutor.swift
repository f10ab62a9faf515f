import REAPI
import RunnerCache
import RunnerModel
import RunnerRemoteAPI

/// Tasks run on a REAPI v2 Execution service (`grpc://`, `grpcs://`): the blobs the server
/// lacks go up (found with one FindMissingBlobs: the Command, the Action, the input tree and
/// the source files, each read and checked against the digest its key names), the Action
/// runs through Execute, and the outputs, stdout and stderr come back checked.
package final class RemoteActionExecutor: RemoteExecutor {
  package let name: String
  let connection: REAPIConnection

  init(name: String, connection: REAPIConnection) {
    self.name = name
    self.connection = connection
  }

  /// Connects to `endpoint` (no exchange happens until the first task).
  package static func connect(
    _ endpoint: RemoteEndpoint, headers: [(name: String, value: String)], trustRoots: String?, timeout: Duration
  ) throws(RemoteError) -> RemoteActionExecutor {
    guard endpoint.scheme.isGRPC else {
      throw RemoteError("remote execution needs a gRPC server (grpc:// or grpcs://), not \(endpoint)")
    }
    let connection = try REAPIConnection(endpoint, headers: headers, trustRoots: trustRoots, timeout: timeout)
    return RemoteActionExecutor(name: endpoint.description, connection: connection)
  }

  package func close() async { await connection.close() }

  package func execute(_ job: RemoteJob, scratch: String) async throws(RemoteCacheError) -> RemoteRun {
    let runnable = job.runnable
    var blobs: [Digest: [UInt8]] = [:]
    for blob in [runnable.command.encoded, runnable.action.encoded] + runnable.directories {
      blobs[Digest(of: blob)] = blob
    }
    var files: [Digest: String] = [:]
    for (digest, path) in job.inputs { files[Digest(digest)] = path }
    let missing = try await connection.missing(Array(blobs.keys) + Array(files.keys))
    var upload: [[UInt8]] = []
    for digest in missing {
      if let blob = blobs[digest] {
        upload.append(blob)
      } else if let path = files[digest] {
        upload.append(try Self.read(path, as: digest))
      }
    }
    if !upload.isEmpty { try await connection.send(upload, batchLimit: try await connection.batchLimit()) }
    let response = try await connection.execute(Digest(runnable.digest), skipCacheLookup: job.skipCacheLookup)
    let result = response.result
    guard
      let download = try await RemoteActionCache.download(result, from: connection, name: name, scratch: scratch)
    else {
      throw RemoteError("\(name) returned output directories or symlinks, which runner does not take", corrupt: true)
    }
    return RemoteRun(
      exitCode: result.exitCode, entry: download.entry, contents: download.contents,
      values: download.runnerFiles[ActionKey.valuesOutput], cached: response.cachedResult,
      trace: download.runnerFiles[ActionKey.traceOutput])
  }

  /// A source file's bytes, which must still be those its key names.
  static func read(_ path: String, as digest: Digest) throws(RemoteError) -> [UInt8] {
    let bytes: [UInt8]
    do {
      bytes = try FileReader.read(path)
    } catch {
      throw RemoteError("cannot read source '\(path)': \(error)", corrupt: true)
    }
    guard Digest(of: bytes) == digest else {
      throw RemoteError("source '\(path)' changed after runner read it", corrupt: true)
    }
    return bytes
  }
}
