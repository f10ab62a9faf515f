import RunnerModel

/// go-task runs each command with mvdan/sh, a bash-like interpreter, with errexit and without
/// pipefail or nounset unless `set:` asks: the import writes `bash -e`, then what the file's
/// and the task's `set:` and `shopt:` ask, as bash's own flags (`-o pipefail`, `-O globstar`).
extension TaskfileImporter {
  static let bashArguments = ["bash", "--noprofile", "--norc", "-e"]

  /// go-task's `set:` names (long and short) as bash's `set -o` names.
  static let setOptions: [String: String] = [
    "errexit": "errexit", "e": "errexit", "nounset": "nounset", "u": "nounset", "pipefail": "pipefail",
    "xtrace": "xtrace", "x": "xtrace", "noglob": "noglob", "f": "noglob", "allexport": "allexport",
    "a": "allexport", "noexec": "noexec", "n": "noexec",
  ]

  /// The bash flags for a `set:` or `shopt:` list; what bash cannot take is reported.
  func shellFlags(_ node: YAMLNode, key: String, _ report: inout ImportReport) -> [String] {
    let items: [YAMLNode]
    if case .sequence(let values) = node.kind { items = values } else { items = [node] }
    var flags: [String] = []
    for item in items {
      guard let name = item.scalar, !name.isEmpty else {
        report.notCarried("\(key): …", at: item.location.line, "a \(key) option is a name")
        continue
      }
      if key == "set" {
        guard let option = Self.setOptions[name] else {
          report.notCarried("set: \(name)", at: item.location.line, "not a shell option go-task sets")
          continue
        }
        flags += ["-o", option]
      } else if name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
        flags += ["-O", name]
      } else {
        report.notCarried("shopt: \(name)", at: item.location.line, "not a shell option name")
      }
    }
    return flags
  }

  /// The same options as commands at the head of one command's script.
  func shellPrelude(_ flags: [String]) -> String {
    var lines: [String] = []
    var index = 0
    while index + 1 < flags.count {
      lines.append(flags[index] == "-o" ? "set -o \(flags[index + 1])" : "shopt -s \(flags[index + 1])")
      index += 2
    }
    return lines.isEmpty ? "" : lines.joined(separator: "; ") + "; "
  }
}
