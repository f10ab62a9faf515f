/// Fetches the body of an `http://` or `https://` URL for an image task's `load`.
///
/// The network client lives in the remote layer (`RunnerRemote.HTTPFetcher`, on
/// AsyncHTTPClient); the façade hands it to `OperationFactory`.
package protocol URLFetching: Sendable {
  /// - Parameters:
  ///   - timeout: the whole transfer's time limit.
  ///   - maxBytes: the largest body accepted.
  /// - Returns: the response body.
  /// - Throws: `ImagingError.httpStatus` for a status ≥ 400, `.responseTooLarge`, or
  ///   `.fetchFailed` (a bad URL, a network failure, a timeout, cancellation).
  func fetch(_ url: String, timeout: Duration, maxBytes: Int) async throws(ImagingError) -> [UInt8]
}
