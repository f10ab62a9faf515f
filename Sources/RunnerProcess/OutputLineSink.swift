import RunnerBasics

/// Receives a task's output as raw bytes: runs of whole lines, and pieces of a line too long to
/// hold.
package protocol OutputLineSink: Sendable {
  /// Called on the reactor thread, in order, with the whole lines of one read (or of a line
  /// put together from several).
  ///
  /// - Important: the bytes are only valid during the call: copy what you keep. The call
  ///   blocks the reactor, and with it every other task's output and completion: do not block.
  func receive(lines: OutputLines, stream: OutputStreamKind)

  /// A piece of a line, without a newline: the line goes on in the next call for `stream`.
  /// Pieces happen past 1 MiB without a newline, and for a last line without one when the
  /// pipe ends.
  func receive(fragment: UnsafeRawBufferPointer, stream: OutputStreamKind)

  /// The line a read left unfinished so far (a progress bar rewritten with `\r` has no newline
  /// until it is done), for a live view to show; the same bytes come again in the line.
  func receive(unfinished: UnsafeRawBufferPointer, stream: OutputStreamKind)
}

extension OutputLineSink {
  package func receive(unfinished: UnsafeRawBufferPointer, stream: OutputStreamKind) {}
}
