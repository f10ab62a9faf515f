import Imaging

/// What runs image tasks when no network client was given: a URL is refused with the reason.
struct NoNetwork: URLFetching {
  func fetch(_ url: String, timeout: Duration, maxBytes: Int) async throws(ImagingError) -> [UInt8] {
    throw .fetchFailed(url: url, reason: "this run has no network client")
  }
}
