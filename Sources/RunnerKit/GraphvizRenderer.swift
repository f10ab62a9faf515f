import Glibc
import RunnerBasics
import RunnerModel
import RunnerRendering
import RunnerReporting

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

  /// - Returns: the drawing's bytes.
  /// - Throws: `Failure.notInstalled` without `dot`; `Failure.failed` when it fails.
  package func render(_ selection: GraphSelection, format: Format) throws(Failure) -> [UInt8] {
    guard Self.isAvailable else { throw .notInstalled }
    let base = (ProcessEnvironment.current["TMPDIR"] ?? "/tmp") + "/runner-graph-\(getpid())"
    let input = base + ".dot"
    let output = base + "." + format.rawValue
    defer {
      unlink(input)
      unlink(output)
    }
    do {
      try ReportFile.write(DOTRenderer().render(selection), to: input)
    } catch {
      throw .failed("\(error)")
    }
    let arguments = ["dot", "-T\(format.rawValue)", "-o", output, input]
    var pid = pid_t()
    var argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    let spawned = posix_spawnp(&pid, "dot", nil, nil, &argv, environ)
    guard spawned == 0 else { throw spawned == ENOENT ? .notInstalled : .failed(FileReader.describe(spawned)) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    guard status == 0 else { throw .failed("exit status \(status >> 8)") }
    guard let bytes = try? FileReader.read(output) else { throw .failed("it wrote no output") }
    return bytes
  }
}
