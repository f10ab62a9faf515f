import RunnerBasics

/// Receives a task's output, line by line, as raw bytes.
package protocol OutputLineSink: Sendable {
  /// Called on the reactor thread, in order, for each line (without the newline) or line fragment.
  ///
  /// A line arrives either whole with `complete == true`, or as one or more fragments with
  /// `complete == false` followed by its last piece with `complete == true` (possibly empty).
  /// When the task ends, a last line without a newline arrives as a fragment and nothing follows.
  /// Fragments happen past 1 MiB without a newline, and when a line spans several reads.
  ///
  /// - Important: `line` is only valid during the call: copy what you keep. The call blocks
  ///   the reactor, and with it every other task's output and completion: do not block here.
  func receive(_ line: UnsafeRawBufferPointer, stream: OutputStreamKind, complete: Bool)
}
