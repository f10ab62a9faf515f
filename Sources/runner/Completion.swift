import Glibc
import RunnerKit

extension RunnerCommand {
  /// Shell completion of task names (bash, zsh, fish: `runner --generate-completion-script SHELL`).
  ///
  /// Reads the task file the words name (`-f FILE`, a first `*.yml` argument) or
  /// `./tasks.yml`; offers nothing when it does not load.
  @Sendable static func completeTaskNames(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
    let arguments = Array(words.dropFirst())
    // As the run would: in -C DIR, the file named, else the nearest task file.
    if let flag = arguments.firstIndex(where: { $0 == "-C" || $0 == "--dir" }), flag + 1 < arguments.count {
      _ = chdir(Self.expandingHome(arguments[flag + 1]))
    } else if let word = arguments.first(where: { $0.hasPrefix("--dir=") }) {
      _ = chdir(Self.expandingHome(String(word.dropFirst("--dir=".count))))
    }
    var path = (try? TaskFileLocator.find().get()) ?? "tasks.yml"
    if let flag = arguments.firstIndex(where: { $0 == "-f" || $0 == "--file" }), flag + 1 < arguments.count {
      path = arguments[flag + 1]
    } else if let first = arguments.first(where: { $0.hasSuffix(".yml") || $0.hasSuffix(".yaml") }) {
      path = first
    }
    let names = Runner.taskNames(inFile: path).filter { $0.hasPrefix(prefix) }.sorted()
    // zsh's `_describe` reads `name:description`: a ':' in a task name must be escaped.
    guard let shell = getenv("SAP_SHELL"), String(cString: shell) == "zsh" else { return names }
    return names.map { $0.replacing(":", with: "\\:") }
  }

  /// `~/x` as the shell would have expanded it (completion gets the word as typed).
  static func expandingHome(_ path: String) -> String {
    guard path == "~" || path.hasPrefix("~/"), let home = getenv("HOME") else { return path }
    return String(cString: home) + path.dropFirst()
  }
}
