import Glibc
import REAPI
import RunnerBasics
import RunnerCache
import RunnerRemoteAPI

typealias ActionResult = Build_Bazel_Remote_Execution_V2_ActionResult

/// What the two protocols share: blobs by digest and an action cache.
protocol BlobServer: Sendable {
  /// Stores every blob (those the server lacks, where it can tell).
  func putBlobs(_ blobs: [[UInt8]]) async throws(RemoteError)
  /// The blob of `digest`, checked against it; nil when the server does not hold it.
  func blob(_ digest: Digest) async throws(RemoteError) -> [UInt8]?
  func actionResult(for action: Digest) async throws(RemoteError) -> ActionResult?
  func storeActionResult(_ result: ActionResult, for action: Digest) async throws(RemoteError)
  func close() async
}

/// A remote cache of task results over REAPI (`grpc://`, `grpcs://`) or Bazel's HTTP cache
/// (`http://`, `https://`). A result is an `ActionResult` with exit code 0 whose output files
/// are the task's declared outputs (paths relative to its working directory), with stdout and
/// stderr by digest; the task's output values and an image task's image travel as two more
/// output files under `.runner/` (a name no task's output can take).
package final class RemoteActionCache: RemoteCache {
  package let name: String
  let server: any BlobServer
  /// Signs each result stored (`RUNNER_REMOTE_SIGNING_KEY`).
  let signing: CacheSigningKey?
  /// Restores only results signed by these keys (`remote.trust`); nil: any result.
  let trust: CacheTrust?

  /// The output file holding the task's values: `key NUL value NUL`, sorted by key.
  static let valuesPath = ".runner/values"
  /// The output file holding an image task's image (PNG).
  static let imagePath = ".runner/image.png"

  init(name: String, server: any BlobServer, signing: CacheSigningKey? = nil, trust: CacheTrust? = nil) {
    self.name = name
    self.server = server
    self.signing = signing
    self.trust = trust
  }

  /// Connects to `endpoint` (no exchange happens until the first lookup).
  ///
  /// - Parameters:
  ///   - headers: sent with every call (`Authorization: Bearer …`).
  ///   - trustRoots: a PEM file of the certificates a TLS server's must chain to.
  ///   - timeout: the deadline of each call.
  ///   - signing: the key each stored result is signed with.
  ///   - trust: the keys a result must be signed by to be restored; nil: any result is.
  package static func connect(
    _ endpoint: RemoteEndpoint, headers: [(name: String, value: String)], trustRoots: String?, timeout: Duration,
    signing: CacheSigningKey? = nil, trust: CacheTrust? = nil
  ) throws(RemoteError) -> RemoteActionCache {
    let server: any BlobServer =
      endpoint.scheme.isGRPC
      ? try REAPIConnection(endpoint, headers: headers, trustRoots: trustRoots, timeout: timeout)
      : try HTTPCache(endpoint, headers: headers, trustRoots: trustRoots, timeout: timeout)
    return RemoteActionCache(name: endpoint.description, server: server, signing: signing, trust: trust)
  }

  package func close() async { await server.close() }

  package var trustsOnlySigned: Bool { trust != nil }

  package func fetch(_ key: ActionKey, scratch: String) async throws(RemoteCacheError) -> RemoteResult? {
    let action = Digest(key.digest)
    guard let result = try await server.actionResult(for: action), result.exitCode == 0 else { return nil }
    // Checked before any blob is fetched: an untrusted result costs one call.
    let signer: String
    switch trust?.check(result, key: action) {
    case .untrusted(let keyID?):
      throw RemoteCacheError("signed by key \(keyID), which is not trusted", untrusted: true)
    case .untrusted(nil):
      throw RemoteCacheError("that is not signed", untrusted: true)
    case .altered(let keyID):
      throw RemoteCacheError("that key \(keyID) signed but that was changed since", untrusted: true)
    case .trusted(let keyID):
      signer = "signed by key \(keyID)"
    case nil:
      signer =
        CacheSigning.signatures(of: result).first.map {
          "signed by key \(ContentHasher.hex($0.keyID)) (not checked: no remote.trust)"
        } ?? "not signed"
    }
    guard
      var download = try await Self.download(
        result, from: server, name: name, scratch: scratch, inlineNeedsDigest: trust != nil)
    else { return nil }
    if let values = download.runnerFiles[Self.valuesPath] { download.entry.values = try Self.values(values) }
    download.entry.image = download.runnerFiles[Self.imagePath]
    return RemoteResult(entry: download.entry, contents: download.contents, signer: signer)
  }

  /// An ActionResult's outputs, stdout and stderr downloaded: the output files into
  /// `scratch` as a local entry's, the files under `.runner/` (runner's own) in memory. nil
  /// when it holds what a local entry cannot (output directories, symlinks).
  /// - Parameter inlineNeedsDigest: stdout or stderr inlined without a digest is corrupt (a
  ///   signed result's logs are covered by their digests).
  static func download(
    _ result: ActionResult, from server: any BlobServer, name: String, scratch: String, inlineNeedsDigest: Bool = false
  ) async throws(RemoteError) -> (entry: CacheEntry, contents: [String], runnerFiles: [String: [UInt8]])? {
    guard result.outputDirectories.isEmpty, result.outputSymlinks.isEmpty else { return nil }
    var entry = CacheEntry()
    var contents: [String] = []
    var runnerFiles: [String: [UInt8]] = [:]
    for file in result.outputFiles {
      let bytes = try await need(file.digest, from: server, name: name)
      if file.path.hasPrefix(".runner/") {
        runnerFiles[file.path] = bytes
        continue
      }
      let path = scratch + "/\(contents.count)"
      do {
        try CacheFileSystem.writeAtomically(path, bytes)
      } catch {
        throw RemoteError("cannot keep a downloaded output: \(error)")
      }
      contents.append(path)
      entry.files.append(
        CacheEntry.File(
          path: file.path, mode: file.isExecutable ? 0o755 : 0o644, size: file.digest.sizeBytes,
          hash: file.digest.hash))
    }
    for (stream, raw, digest) in [
      (OutputStreamKind.stdout, result.stdoutRaw, result.stdoutDigest),
      (.stderr, result.stderrRaw, result.stderrDigest),
    ] {
      var bytes = [UInt8](raw)
      if bytes.isEmpty, digest.sizeBytes > 0 { bytes = try await need(digest, from: server, name: name) }
      guard digest.sizeBytes == 0 ? !inlineNeedsDigest || bytes.isEmpty : Digest(of: bytes) == digest else {
        throw RemoteError("\(name) sent \(stream) that does not match its digest", corrupt: true)
      }
      guard !bytes.isEmpty else { continue }
      // Replayed as lines: a last line without its newline gets one, as a local run's does.
      if bytes.last != 0x0A { bytes.append(0x0A) }
      entry.log.append(CacheEntry.LogChunk(stream: stream, bytes: bytes))
    }
    return (entry, contents, runnerFiles)
  }

  package func store(_ entry: CacheEntry, for key: ActionKey) async throws(RemoteCacheError) -> Bool {
    var result = ActionResult()
    var blobs: [[UInt8]] = [key.command.encoded, key.action.encoded] + key.directories
    func output(_ path: String, _ bytes: [UInt8], executable: Bool) {
      var file = Build_Bazel_Remote_Execution_V2_OutputFile()
      file.path = path
      file.digest = Digest(of: bytes)
      file.isExecutable = executable
      result.outputFiles.append(file)
      blobs.append(bytes)
    }
    do {
      for file in entry.files {
        // REAPI names outputs by relative paths within the working directory.
        guard !file.path.hasPrefix("/"), !file.path.split(separator: "/").contains("..") else { return false }
        output(file.path, try entry.contents(of: file), executable: file.mode & 0o100 != 0)
      }
    } catch {
      throw RemoteCacheError("cannot read the local cache entry: \(error)")
    }
    output(Self.valuesPath, Self.encode(entry.values), executable: false)
    if let image = entry.image { output(Self.imagePath, image, executable: false) }
    for stream in [OutputStreamKind.stdout, .stderr] {
      let bytes = entry.log.filter { $0.stream == stream }.flatMap(\.bytes)
      guard !bytes.isEmpty else { continue }
      blobs.append(bytes)
      if stream == .stdout { result.stdoutDigest = Digest(of: bytes) } else { result.stderrDigest = Digest(of: bytes) }
    }
    result.outputFiles.sort { $0.path < $1.path }
    try signing?.sign(&result, key: Digest(key.digest))
    try await server.putBlobs(blobs.filter { !$0.isEmpty })
    try await server.storeActionResult(result, for: Digest(key.digest))
    return true
  }

  /// A blob the result names, which the server must hold.
  static func need(_ digest: Digest, from server: any BlobServer, name: String) async throws(RemoteError) -> [UInt8] {
    guard digest.sizeBytes > 0 else { return [] }
    guard let bytes = try await server.blob(digest) else {
      throw RemoteError("\(name) holds a result naming blob \(digest.hash), which it does not hold", corrupt: true)
    }
    return bytes
  }

  static func encode(_ values: [(key: String, value: String)]) -> [UInt8] {
    var bytes: [UInt8] = []
    for (key, value) in values.sorted(by: { $0.key < $1.key }) {
      bytes += Array(key.utf8) + [0] + Array(value.utf8) + [0]
    }
    return bytes
  }

  static func values(_ bytes: [UInt8]) throws(RemoteError) -> [(key: String, value: String)] {
    let fields = bytes.split(separator: 0, omittingEmptySubsequences: false)
    guard fields.count % 2 == 1, fields.last?.isEmpty == true else {
      throw RemoteError("a result's values are malformed", corrupt: true)
    }
    return stride(from: 0, to: fields.count - 1, by: 2).map {
      (String(decoding: fields[$0], as: UTF8.self), String(decoding: fields[$0 + 1], as: UTF8.self))
    }
  }
}

extension Build_Bazel_Remote_Execution_V2_Digest {
  init(_ digest: ActionMessages.Digest) {
    self.init()
    hash = digest.hash
    sizeBytes = digest.size
  }
}

extension REAPIConnection: BlobServer {
  func putBlobs(_ blobs: [[UInt8]]) async throws(RemoteError) {
    try await put(blobs, batchLimit: try await batchLimit())
  }

  func blob(_ digest: Digest) async throws(RemoteError) -> [UInt8]? {
    if digest.sizeBytes + 200 <= Int64(try await batchLimit()) { return try await download([digest])[digest] }
    return try await read(digest)
  }
}

extension HTTPCache: BlobServer {
  func putBlobs(_ blobs: [[UInt8]]) async throws(RemoteError) {
    for blob in blobs { try await put(blob) }
  }
}
