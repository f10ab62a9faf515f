/// What a run would do with one task, and why: for the dry run and `--graph json`.
package struct CachePrediction: Sendable, Equatable {
  package enum Status: String, Sendable {
    /// It would run: something changed, or nothing is recorded.
    case run
    /// It has no `sources` (or loads a URL): it always runs.
    case always
    case upToDate = "up-to-date"
    case restore
  }

  package var status: Status
  /// Why, in words: "Sources/main.swift changed", "no previous run".
  package var reason: String?

  package init(_ status: Status, _ reason: String? = nil) {
    self.status = status
    self.reason = reason
  }

  /// One line for the plan: "would run: command changed", "up to date".
  package var summary: String {
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
