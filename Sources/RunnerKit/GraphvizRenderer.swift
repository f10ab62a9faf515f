import Glibc
import RunnerBasics
import RunnerExecution
import RunnerModel
import RunnerProcess
import RunnerRendering
import RunnerReporting
import Synchronization

/// `--graph svg|png`: the DOT of `DOTRenderer`, laid out and drawn by Graphviz's `dot`.
package struct GraphvizRenderer: Sendable {
  package enum Format: String, Sendable {
    case svg
    case png
  }

  package enum Failure: Error, Sendable, CustomStringConvertible {
    case notInstalled
    case failed(String)

    package var description: String {
      switch self {
      case .notInstalled:
        return "drawing the graph needs Graphviz's 'dot', which is not on the PATH "
          + "(install the 'graphviz' package: apt-get install graphviz); --graph html and --graph dot work without it"
      case .failed(let reason): return "graphviz's 'dot' failed: \(reason)"
      }
    }
  }

  package init() {}

  /// Whether `dot` is on the PATH.
  package static var isAvailable: Bool {
    let path = ProcessEnvironment.current["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").contains { access("\($0)/dot", X_OK) == 0 }
  }

  /// `dot` runs as a task's command does: through the process reactor, in its own process
  /// group, under the orphan watchdog. Its input and output live in a private directory.
  ///
  /// - Returns: the drawing's bytes.
  /// - Throws: `Failure.notInstalled` without `dot`; `Failure.failed` when it fails.
  package func render(_ selection: GraphSelection, format: Format) async throws(Failure) -> [UInt8] {
    guard Self.isAvailable else { throw .notInstalled }
    var template = Array(((ProcessEnvironment.current["TMPDIR"] ?? "/tmp") + "/runner-graph-XXXXXX").utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw .failed("cannot create a temporary directory: \(FileReader.describe(errno))")
    }
    let directory = String(cString: made)
    let input = directory + "/graph.dot"
    let output = directory + "/graph." + format.rawValue
    defer {
      unlink(input)
      unlink(output)
      rmdir(directory)
    }
    do {
      try ReportFile.write(DOTRenderer().render(selection), to: input)
    } catch {
      throw .failed("\(error)")
    }
    let spec = ProcessSpec(
      arguments: ["dot", "-T\(format.rawValue)", "-o", output, input], environment: ProcessEnvironment.current)
    let messages = MessageSink()
    let outcome: ProcessOutcome
    do {
      outcome = try await ProcessReactor.shared.run(spec, sink: messages, grace: .seconds(1))
    } catch .executableNotFound {
      throw .notInstalled
    } catch {
      throw .failed("\(error)")
    }
    guard outcome.isSuccess else {
      let said = messages.text
      throw .failed(said.isEmpty ? "\(outcome)" : "\(outcome): \(said)")
    }
    guard let bytes = try? FileReader.read(output) else { throw .failed("it wrote no output") }
    return bytes
  }
}

/// The first lines a tool prints, for its error message.
final class MessageSink: OutputLineSink {
  private let lines = Mutex<[String]>([])

  var text: String { lines.withLock { $0.joined(separator: "; ") } }

  func receive(lines received: OutputLines, stream: OutputStreamKind) {
    lines.withLock { lines in
      received.forEach { line in
        if lines.count < 5 { lines.append(String(decoding: line, as: UTF8.self)) }
      }
    }
  }

  func receive(fragment: UnsafeRawBufferPointer, stream: OutputStreamKind) {
    lines.withLock { lines in
      if lines.count < 5 { lines.append(String(decoding: fragment, as: UTF8.self)) }
    }
  }
}
