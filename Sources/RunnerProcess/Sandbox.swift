import CRunnerShim
import Glibc

/// What a sandboxed process (`sandbox: strict`) may do to files: Landlock rules, each granting
/// an access beneath a path (a file's part of it for a file). Anything no rule grants, the
/// kernel refuses with `EACCES`. Spawned with a trace (the sandbox names what it refused from
/// the trace).
package struct Sandbox: Sendable, Equatable {
  package enum Access: Int32, Sendable {
    /// Read files, list directories, run programs.
    case read = 0
    /// List directories only.
    case list = 1
    /// Everything: make, write, rename and remove.
    case write = 2
    /// Read and write existing files (a device such as `/dev/null`).
    case device = 3

    package var writes: Bool { self == .write || self == .device }
    package var reads: Bool { self != .list }
  }

  package struct Rule: Sendable, Equatable {
    package var path: String
    package var access: Access

    package init(_ path: String, _ access: Access) {
      self.path = path
      self.access = access
    }
  }

  package var rules: [Rule]

  package init(rules: [Rule]) { self.rules = rules }

  /// Why a sandbox cannot be made here; nil when it can.
  package static var unavailability: String? {
    let abi = runner_sandbox_abi()
    return abi > 0
      ? nil : "it needs Landlock (Linux 5.13 or later, enabled in the kernel): \(String(cString: strerror(-abi)))"
  }

  /// The ruleset's file descriptor, or `-errno`.
  func ruleset() -> Int32 {
    var paths = rules.map { strdup($0.path) }
    defer { for path in paths { free(path) } }
    let kinds = rules.map(\.access.rawValue)
    return paths.withUnsafeMutableBufferPointer { paths in
      paths.withMemoryRebound(to: UnsafePointer<CChar>?.self) { paths in
        runner_sandbox_ruleset(paths.baseAddress, kinds, Int32(kinds.count))
      }
    }
  }

  /// Whether a rule grants `path` (absolute, normalized) reading or writing.
  package func grants(_ path: String, writing: Bool) -> Bool {
    rules.contains { rule in
      (writing ? rule.access.writes : rule.access.reads)
        && (path == rule.path || rule.path == "/" || path.hasPrefix(rule.path + "/"))
    }
  }
}
