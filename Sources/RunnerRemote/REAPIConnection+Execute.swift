import GRPCCore
import REAPI
import SwiftProtobuf
import Synchronization

/// The Execution service: an Action runs on the server's workers.
extension REAPIConnection {
  /// Runs the Action of `action` (its blobs already in the CAS) and waits for it to end.
  ///
  /// The Execute stream has no deadline (a task may run for hours); cancelling the calling task
  /// ends the stream and asks the server to cancel the operation (`CancelOperation`), so
  /// fail-fast and Ctrl-C stop remote work too.
  ///
  /// - Returns: the ExecuteResponse: its `result`, and whether it came from the server's cache.
  package func execute(_ action: Digest, skipCacheLookup: Bool) async throws(RemoteError)
    -> Build_Bazel_Remote_Execution_V2_ExecuteResponse
  {
    var request = Build_Bazel_Remote_Execution_V2_ExecuteRequest()
    request.instanceName = endpoint.path
    request.actionDigest = action
    request.skipCacheLookup = skipCacheLookup
    var streaming = options
    streaming.timeout = nil
    let operation = Mutex<String?>(nil)
    let answer: Result<Google_Longrunning_Operation?, RemoteError> = await withTaskCancellationHandler {
      do throws(RemoteError) {
        return .success(
          try await call("Execute") {
            try await Build_Bazel_Remote_Execution_V2_Execution.Client(wrapping: client).execute(
              request, metadata: metadata, options: streaming
            ) { response in
              for try await message in response.messages {
                operation.withLock { $0 = message.name }
                if message.done { return message }
              }
              return nil
            }
          })
      } catch {
        return .failure(error)
      }
    } onCancel: {
      if let name = operation.withLock({ $0 }) { cancelLater(name) }
    }
    let done = try answer.get()
    var finished = done
    // A server may end the stream before the action ends: WaitExecution picks it up again.
    for _ in 0..<3 where finished == nil {
      guard let name = operation.withLock({ $0 }) else { break }
      finished = try await wait(for: name, options: streaming)
    }
    guard let done = finished else {
      throw RemoteError("Execute on \(endpoint): the stream ended before the action did")
    }
    switch done.result {
    case .error(let status)?:
      throw RemoteError("Execute on \(endpoint): \(Self.describe(status))")
    case .response(let any)?:
      let response: Build_Bazel_Remote_Execution_V2_ExecuteResponse
      do {
        response = try Build_Bazel_Remote_Execution_V2_ExecuteResponse(unpackingAny: any)
      } catch {
        throw RemoteError("Execute on \(endpoint): the answer is not an ExecuteResponse: \(error)", corrupt: true)
      }
      // FAILED_PRECONDITION (an input missing from the CAS) concerns this action only.
      guard response.status.code == 0 else {
        throw RemoteError(
          "Execute on \(endpoint): \(Self.describe(response.status))",
          corrupt: response.status.code == Int32(Status.Code.failedPrecondition.rawValue))
      }
      return response
    case nil:
      throw RemoteError("Execute on \(endpoint): the operation ended with neither a result nor an error")
    }
  }

  /// Follows operation `name` again (`WaitExecution`) to its end; nil if the stream ends first.
  func wait(for name: String, options: CallOptions) async throws(RemoteError) -> Google_Longrunning_Operation? {
    var request = Build_Bazel_Remote_Execution_V2_WaitExecutionRequest()
    request.name = name
    return try await call("WaitExecution") {
      try await Build_Bazel_Remote_Execution_V2_Execution.Client(wrapping: client).waitExecution(
        request, metadata: metadata, options: options
      ) { response in
        for try await message in response.messages where message.done { return message }
        return nil
      }
    }
  }

  /// Asks the server to cancel operation `name`, without waiting (the caller is being cancelled).
  /// `close()` waits for these requests, up to its cutoff.
  func cancelLater(_ name: String) {
    var request = Google_Longrunning_CancelOperationRequest()
    request.name = name
    let client = self.client
    let metadata = self.metadata
    var options = self.options
    options.timeout = .seconds(2)
    let cancelling = Task {
      _ = try? await Google_Longrunning_Operations.Client(wrapping: client)
        .cancelOperation(request, metadata: metadata, options: options)
    }
    cancellations.withLock { $0.append(cancelling) }
  }

  static func describe(_ status: Google_Rpc_Status) -> String {
    let code = Status.Code(rawValue: Int(status.code)).map { "\($0)" } ?? "code \(status.code)"
    return status.message.isEmpty ? code : "\(code): \(status.message)"
  }
}
