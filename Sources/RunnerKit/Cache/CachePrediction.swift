/// What a run would do with one task, and why: for the dry run and `--graph json`.
public struct CachePrediction: Sendable, Equatable {
  public enum Status: String, Sendable {
    /// It would run: something changed, or nothing is recorded.
    case run
    /// It has no `sources` (or loads a URL): it always runs.
    case always
    case upToDate = "up-to-date"
    case restore
  }

  public var status: Status
  /// Why, in words: "Sources/main.swift changed", "no previous run".
  public var reason: String?

  public init(_ status: Status, _ reason: String? = nil) {
    self.status = status
    self.reason = reason
  }

  /// One line for the plan: "would run: command changed", "up to date".
  public var summary: String {
    let head: String
    switch status {
    case .run: head = "would run"
    case .always: head = "always runs"
    case .upToDate: head = "up to date"
    case .restore: head = "would be restored from the cache"
    }
    return head + (reason.map { ": \($0)" } ?? "")
  }
}
