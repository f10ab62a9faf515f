import Glibc
import RunnerModel

/// go-task makes a task's `dir` when it is missing and expands `~`; runner does neither.
extension TaskfileImporter {
  /// Whether `dir` (relative to the file, with the file's plain vars filled in) is there now;
  /// false for a templated one the import cannot work out.
  func isThere(_ dir: String, _ context: Context) -> Bool {
    if dir.hasPrefix("/") { return true }
    guard let resolved = loadTimeText(dir, line: 0, context) else { return false }
    if resolved.hasPrefix("/") { return true }
    if resolved.hasPrefix("~") { return false }
    let base = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
    return access(onDisk(base + "/" + resolved), F_OK) == 0
  }

  /// `dir` as shell text for `mkdir -p` and `cd`: `~` expanded by the shell, templates as in
  /// commands.
  func madeDirectory(
    _ dir: String, line: Int, _ context: Context, _ state: inout TaskState, _ report: inout ImportReport
  ) -> String {
    var rest = Substring(dir)
    var prefix = ""
    if rest.hasPrefix("~") {
      // `~` and `~/` stay outside the quotes, where the shell expands them.
      prefix = rest.hasPrefix("~/") ? "~/" : "~"
      rest = rest.dropFirst(prefix.count)
    }
    if rest.isEmpty { return prefix.isEmpty ? "." : prefix }
    return prefix + "\"" + convertCommand(String(rest), line: line, context, &state, &report, quoting: .double) + "\""
  }

  func noteDirectory(_ dir: String, line: Int, _ context: Context, _ report: inout ImportReport) {
    if dir.hasPrefix("~") {
      report.notCarried("dir: \(dir)", at: line, "runner does not expand ~ in dir: write the path")
      return
    }
    // A templated dir is checked with the vars' values as the file sets them.
    var resolved = dir
    for (name, param) in context.fileParams {
      guard let value = param.defaultValue else { continue }
      for spelling in ["{{.\(name)}}", "{{ .\(name) }}"] { resolved = resolved.replacing(spelling, with: value) }
    }
    guard !resolved.hasPrefix("/") else { return }
    let base = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
    if resolved.contains("{{") || access(base + "/" + resolved, F_OK) != 0 {
      report.approximate(
        "dir: \(dir)", at: line,
        "not there now: go-task makes a missing dir before the task runs; runner fails the task (make it in a dependency)"
      )
    }
  }
}
