/// A task's `jobserver:`: how the tools it runs (make, ninja, cargo) share runner's `-j` slots
/// through the GNU make jobserver that `MAKEFLAGS` names.
package enum JobserverSetting: String, Sendable, Equatable, CaseIterable {
  /// `true`, the default: `fifo` when the `make` on runner's `PATH` is GNU make 4.4 or later
  /// (or there is none), else `pipe`, which older makes need.
  case automatic = "true"
  /// `--jobserver-auth=fifo:PATH` (GNU make 4.4, ninja 1.13, cargo).
  case fifo
  /// `--jobserver-auth=R,W`: two descriptors the task inherits (every GNU make since 4.2, cargo).
  case pipe
  /// `false`: none. What `MAKEFLAGS` had of a jobserver (runner under make) is taken out.
  case off = "false"
}

extension TaskFileDecoder {
  /// `jobserver: true | false | fifo | pipe`.
  mutating func jobserver(_ node: YAMLNode, what: String) -> JobserverSetting? {
    switch node.scalar?.lowercased() {
    case "true", "yes", "on": return .automatic
    case "false", "no", "off": return .off
    case "fifo": return .fifo
    case "pipe": return .pipe
    default:
      reader.fail(.wrongType(what: what, expected: "true, false, fifo or pipe", found: node.quotedOrKind), at: node)
      return nil
    }
  }

  /// A task's own `jobserver` needs commands; a service gets none (it holds no job slot once
  /// up), so only `false` goes with one.
  mutating func checkJobserver(_ task: TaskDefinition, run: YAMLNode?, entries: [YAMLEntry]) {
    guard let entry = entries.first(where: { $0.name == "jobserver" }) else { return }
    if run == nil {
      reader.fail(.invalidValue(what: "'jobserver' of task '\(task.name)'", reason: "needs 'run'"), at: entry.value)
    } else if task.isService, task.jobserver != .off {
      reader.fail(
        .invalidValue(
          what: "'jobserver' of task '\(task.name)'",
          reason: "cannot go with 'service': a service holds no job slot once it is up, and gets no jobserver"),
        at: entry.value)
    }
  }
}
