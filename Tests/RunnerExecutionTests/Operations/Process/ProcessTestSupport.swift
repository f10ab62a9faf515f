import Foundation
import Synchronization

@testable import RunnerBasics
@testable import RunnerExecution
@testable import RunnerProcess

/// A sink that keeps everything, reassembling fragments into whole lines.
final class CollectingSink: OutputLineSink {
  struct Line: Equatable {
    var stream: OutputStreamKind
    var bytes: [UInt8]
    /// False for a last line that had no newline.
    var complete: Bool
  }

  private let state = Mutex<(lines: [Line], partial: [OutputStreamKind: [UInt8]])>(([], [:]))

  func receive(lines: OutputLines, stream: OutputStreamKind) {
    state.withLock { state in
      lines.forEach { line in
        var bytes = state.partial.removeValue(forKey: stream) ?? []
        bytes.append(contentsOf: line)
        state.lines.append(Line(stream: stream, bytes: bytes, complete: true))
      }
    }
  }

  func receive(fragment: UnsafeRawBufferPointer, stream: OutputStreamKind) {
    state.withLock { $0.partial[stream, default: []].append(contentsOf: fragment) }
  }

  /// Complete lines, then any unterminated last line per stream (stdout first).
  var lines: [Line] {
    state.withLock { state in
      var lines = state.lines
      for stream in [OutputStreamKind.stdout, .stderr] {
        if let bytes = state.partial[stream] { lines.append(Line(stream: stream, bytes: bytes, complete: false)) }
      }
      return lines
    }
  }

  func text(_ stream: OutputStreamKind) -> [String] {
    lines.filter { $0.stream == stream }.map { String(decoding: $0.bytes, as: UTF8.self) }
  }
}

/// A sink that only counts, to push large volumes through.
final class CountingSink: OutputLineSink {
  private let state = Mutex<(bytes: Int, calls: Int, largest: Int, newlines: Int)>((0, 0, 0, 0))

  func receive(lines: OutputLines, stream: OutputStreamKind) {
    state.withLock { state in
      lines.forEach { line in
        state.bytes += line.count
        state.largest = max(state.largest, line.count)
        state.newlines += 1
      }
      state.calls += 1
    }
  }

  func receive(fragment: UnsafeRawBufferPointer, stream: OutputStreamKind) {
    state.withLock { state in
      state.bytes += fragment.count
      state.calls += 1
      state.largest = max(state.largest, fragment.count)
    }
  }

  var totals: (bytes: Int, calls: Int, largest: Int, newlines: Int) { state.withLock { $0 } }
}

/// A sink that counts bytes and calls only, costing next to nothing a call.
final class ReadCountingSink: OutputLineSink {
  private let state = Mutex<(bytes: Int, calls: Int)>((0, 0))

  func receive(lines: OutputLines, stream: OutputStreamKind) {
    state.withLock { $0 = ($0.bytes + lines.bytes.count, $0.calls + 1) }
  }

  func receive(fragment: UnsafeRawBufferPointer, stream: OutputStreamKind) {
    state.withLock { $0 = ($0.bytes + fragment.count, $0.calls + 1) }
  }

  var totals: (bytes: Int, calls: Int) { state.withLock { $0 } }
}

enum ProcessTestSupport {
  static let path = "/usr/local/bin:/usr/bin:/bin"

  static func shell(_ script: String, environment: [String: String] = [:], directory: String? = nil) -> ProcessSpec {
    ProcessSpec(
      arguments: ["/bin/sh", "-c", script], environment: environment.merging(["PATH": path]) { a, _ in a },
      workingDirectory: directory)
  }

  /// A marker put into the environment of a test's processes, inherited by every descendant.
  static func newMarker() -> (environment: [String: String], marker: String) {
    let marker = "RUNNER_TEST_MARKER=\(UUID().uuidString)"
    return (["RUNNER_TEST_MARKER": String(marker.dropFirst("RUNNER_TEST_MARKER=".count))], marker)
  }

  /// Live (non-zombie) processes whose environment holds `marker`.
  static func processes(withMarker marker: String) -> [Int32] {
    let needle = Array(marker.utf8)
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry -> Int32? in
      guard let pid = Int32(entry), pid != getpid(),
        let environ = FileManager.default.contents(atPath: "/proc/\(entry)/environ")
      else { return nil }
      let variables = environ.split(separator: 0)
      return variables.contains { Array($0) == needle } ? pid : nil
    }
  }

  /// Polls until `condition` holds; false after `timeout` (generous: this is not a speed check).
  static func eventually(timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
      if condition() { return true }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
  }

  /// Runs `body` but gives up after `timeout`, returning nil (a hang becomes a test failure).
  static func withTimeout<T: Sendable>(
    _ timeout: Duration = .seconds(60), _ body: @escaping @Sendable () async -> T
  ) async -> T? {
    await withTaskGroup(of: T?.self) { group in
      group.addTask { await body() }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return nil
      }
      let first = await group.next() ?? nil
      group.cancelAll()
      return first
    }
  }
}
