import Foundation
import GRPCCore
import REAPI
import RunnerCache

/// Blobs of any size (ByteStream above the batch limit) and the action cache.
extension REAPIConnection {
  /// ByteStream writes in pieces of this size, well under gRPC's usual 4 MiB message limit.
  static let chunkSize = 1 << 20
  /// The largest batch when the server names none: gRPC's 4 MiB less room for the framing.
  package static let defaultBatchLimit = 4 * 1024 * 1024 - 64 * 1024

  /// The batch limit the server asks for (`max_batch_total_size_bytes`; 0 means none), capped
  /// at `defaultBatchLimit`.
  package static func batchLimit(_ capabilities: Build_Bazel_Remote_Execution_V2_ServerCapabilities) -> Int {
    let named = Int(capabilities.cacheCapabilities.maxBatchTotalSizeBytes)
    return named > 0 ? min(named, defaultBatchLimit) : defaultBatchLimit
  }

  /// The server's largest batch, asked once (`Capabilities`).
  package func batchLimit() async throws(RemoteError) -> Int {
    if let known = knownBatchLimit.withLock({ $0 }) { return known }
    let limit = Self.batchLimit(try await capabilities())
    knownBatchLimit.withLock { $0 = limit }
    return limit
  }

  /// Stores every blob the server does not hold yet: small ones in batches of at most
  /// `batchLimit` bytes, larger ones through ByteStream.
  package func put(_ blobs: [[UInt8]], batchLimit: Int = defaultBatchLimit) async throws(RemoteError) {
    var byDigest: [Digest: [UInt8]] = [:]
    for blob in blobs { byDigest[Digest(of: blob)] = blob }
    let missing = try await self.missing(Array(byDigest.keys))
    try await send(missing.compactMap { byDigest[$0] }, batchLimit: batchLimit)
  }

  /// Stores `blobs`, which the server lacks: small ones in batches of at most `batchLimit`
  /// bytes, larger ones through ByteStream.
  package func send(_ blobs: [[UInt8]], batchLimit: Int) async throws(RemoteError) {
    var batch: [[UInt8]] = []
    var batchBytes = 0
    for blob in blobs {
      // Each entry costs its digest and framing beside its bytes.
      let cost = blob.count + 200
      if cost > batchLimit {
        try await write(blob)
        continue
      }
      if batchBytes + cost > batchLimit {
        try await upload(batch)
        batch = []
        batchBytes = 0
      }
      batch.append(blob)
      batchBytes += cost
    }
    if !batch.isEmpty { try await upload(batch) }
  }

  /// Writes one blob through ByteStream, whatever its size.
  package func write(_ blob: [UInt8]) async throws(RemoteError) {
    let digest = Digest(of: blob)
    let resource = resourcePrefix + "uploads/\(Self.uuid())/blobs/\(digest.hash)/\(digest.sizeBytes)"
    let committed = try await call("ByteStream.Write") {
      try await Google_Bytestream_ByteStream.Client(wrapping: client).write(
        metadata: metadata, options: options,
        requestProducer: { writer in
          var offset = 0
          repeat {
            let end = min(offset + Self.chunkSize, blob.count)
            var request = Google_Bytestream_WriteRequest()
            request.resourceName = resource
            request.writeOffset = Int64(offset)
            request.data = Data(blob[offset..<end])
            request.finishWrite = end == blob.count
            try await writer.write(request)
            offset = end
          } while offset < blob.count
        }
      ).committedSize
    }
    // A server that holds the blob already may end the write early, saying it has all of it.
    guard committed == digest.sizeBytes else {
      throw RemoteError("\(endpoint) took \(committed) of the \(digest.sizeBytes) bytes of blob \(digest.hash)")
    }
  }

  /// Reads one blob through ByteStream, checked against its digest; nil when the server does
  /// not hold it.
  package func read(_ digest: Digest) async throws(RemoteError) -> [UInt8]? {
    var request = Google_Bytestream_ReadRequest()
    request.resourceName = resourcePrefix + "blobs/\(digest.hash)/\(digest.sizeBytes)"
    let bytes: [UInt8]? = try await call("ByteStream.Read", notFound: nil) {
      try await Google_Bytestream_ByteStream.Client(wrapping: client).read(
        request, metadata: metadata, options: options
      ) { response in
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(digest.sizeBytes))
        for try await message in response.messages { bytes.append(contentsOf: message.data) }
        return bytes
      }
    }
    guard let bytes else { return nil }
    guard Digest(of: bytes) == digest else {
      throw RemoteError("\(endpoint) sent blob \(digest.hash) with bytes of another digest", corrupt: true)
    }
    return bytes
  }

  /// The result the action cache holds for `action`, with stdout and stderr inline where the
  /// server keeps them so; nil when it holds none.
  package func actionResult(for action: Digest) async throws(RemoteError)
    -> Build_Bazel_Remote_Execution_V2_ActionResult?
  {
    var request = Build_Bazel_Remote_Execution_V2_GetActionResultRequest()
    request.instanceName = endpoint.path
    request.actionDigest = action
    request.inlineStdout = true
    request.inlineStderr = true
    return try await call("GetActionResult", notFound: nil) {
      try await Build_Bazel_Remote_Execution_V2_ActionCache.Client(wrapping: client)
        .getActionResult(request, metadata: metadata, options: options)
    }
  }

  /// Records `result` as `action`'s. The contract strict servers check: the Action, its
  /// Command and input root, and every output blob are in the CAS first, and stdout and stderr
  /// go by digest, never inline.
  package func storeActionResult(_ result: Build_Bazel_Remote_Execution_V2_ActionResult, for action: Digest)
    async throws(RemoteError)
  {
    var request = Build_Bazel_Remote_Execution_V2_UpdateActionResultRequest()
    request.instanceName = endpoint.path
    request.actionDigest = action
    request.actionResult = result
    _ = try await call("UpdateActionResult") {
      try await Build_Bazel_Remote_Execution_V2_ActionCache.Client(wrapping: client)
        .updateActionResult(request, metadata: metadata, options: options)
    }
  }

  /// `instance/` or nothing: ByteStream's resource names start with the instance.
  var resourcePrefix: String { endpoint.path.isEmpty ? "" : endpoint.path + "/" }

  /// A random version-4 UUID, as ByteStream's upload names want one.
  static func uuid() -> String {
    var bytes = (0..<16).map { _ in UInt8.random(in: 0...255) }
    bytes[6] = bytes[6] & 0x0F | 0x40
    bytes[8] = bytes[8] & 0x3F | 0x80
    let hex = Array(ContentHasher.hex(bytes))
    return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
  }
}
