import RunnerModel

/// The parts of go-task commands the conversion writes: quoting, durations, platforms, paths,
/// ignored failures and go-task's own variables.
extension TaskfileImporter {
  /// The shell word for `absPath`'s argument: a string written in double quotes, or a var.
  func absPathArgument(
    _ text: Substring, _ quoting: Quoting, _ report: inout ImportReport,
    _ replacement: (String, Quoting, inout ImportReport) -> Replacement?
  ) -> String? {
    if text.count >= 2, text.first == "\"", text.last == "\"" {
      let literal = text.dropFirst().dropLast()
      guard !literal.contains("\"") && !literal.contains("\\") else { return nil }
      return Self.quoted(String(literal))
    }
    guard text.hasPrefix("."), Self.isName(text.dropFirst()),
      case .expansion(let expansion) = replacement(String(text.dropFirst()), .double, &report)
    else { return nil }
    return "\"" + expansion + "\""
  }

  /// A Go duration (`200ms`, `1m30s`, `1.5h`) in seconds as coreutils' `timeout` takes them.
  static func seconds(ofGoDuration text: String) -> String? {
    let units: [(String, Double)] = [
      ("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600),
    ]
    var rest = Substring(text)
    var total = 0.0
    guard !rest.isEmpty else { return nil }
    while !rest.isEmpty {
      let number = rest.prefix { $0.isNumber || $0 == "." }
      guard let value = Double(number) else { return nil }
      rest = rest.dropFirst(number.count)
      // The longest unit that matches (`ms` before `m`).
      guard let unit = units.filter({ rest.hasPrefix($0.0) }).max(by: { $0.0.count < $1.0.count }) else {
        return nil
      }
      total += value * unit.1
      rest = rest.dropFirst(unit.0.count)
    }
    // Past a year is no timeout anyone means (and Int(Double) must not overflow).
    guard total > 0, total < 31_536_000 else { return nil }
    // Whole milliseconds, at least one.
    let milliseconds = max(1, Int((total * 1000).rounded()))
    var fraction = String(milliseconds % 1000)
    fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
    while fraction.hasSuffix("0") { fraction.removeLast() }
    return "\(milliseconds / 1000)" + (fraction.isEmpty ? "" : "." + fraction)
  }

  /// `platforms` of one command as a shell test.
  func shellPlatforms(_ node: YAMLNode) -> String? {
    guard case .sequence(let items) = node.kind else { return nil }
    let tests = items.compactMap(\.scalar).compactMap { platform -> String? in
      guard let os = platform.split(separator: "/").first else { return nil }
      return "[ \"$(uname -s | tr '[:upper:]' '[:lower:]')\" = \(os) ]"
    }
    return tests.isEmpty ? nil : tests.joined(separator: " || ")
  }

  /// `(script) || true`: a subshell, so an `exit` ends it, not the `|| true`. In it errexit is
  /// off (the `||`), so a script of several commands goes on after one fails (go-task stops it).
  static func ignoringFailure(_ script: String, line: Int, _ report: inout ImportReport) -> String {
    if script.contains("\n") || script.contains(";") || script.contains("&&") {
      report.approximate(
        "ignore_error", at: line,
        "a command of several steps goes on after one fails (runner ignores its failure as a whole)")
    }
    return script.contains("#") || script.contains("\n") ? "(\(script)\n) || true" : "(\(script)) || true"
  }

  /// True when a command lists the shell's options (`shopt`, `shopt -p`, `set -o` with no name).
  static func printsShellOptions(_ text: String) -> Bool {
    let words = text.split(whereSeparator: { " \t\n;|&".contains($0) })
    for (index, word) in words.enumerated() {
      if word == "shopt", index + 1 == words.count || !["-s", "-u", "-q"].contains(words[index + 1]) { return true }
      if word == "set", index + 1 < words.count, words[index + 1] == "-o" || words[index + 1] == "+o",
        index + 2 == words.count || words[index + 2].hasPrefix("-")
      {
        return true
      }
    }
    return false
  }

  /// The last component of a path.
  static func fileName(of path: String) -> String {
    String(path.split(separator: "/").last ?? Substring(path))
  }

  /// Variables go-task sets itself that runner has no value for.
  static let specialVariables: Set<String> = [
    "TIMESTAMP", "CHECKSUM", "TASK_EXE", "TASK_VERSION", "MATCH", "EXIT_CODE", "CLI_FORCE", "CLI_SILENT",
    "CLI_VERBOSE", "CLI_OFFLINE", "CLI_ASSUME_YES",
  ]

  /// go-task's `{{.TIMESTAMP}}` (`.Unix`: its seconds): the newest modification time of the
  /// files the globs find, as Go prints a time (`2026-08-21 13:31:53.25 +0000 UTC`), the
  /// epoch when none is found. nil when a glob holds what the shell would read otherwise.
  static func newestTime(_ globs: [String], unix: Bool) -> String? {
    guard
      globs.allSatisfy({ glob in
        !glob.contains("{{") && glob.allSatisfy { $0.isLetter || $0.isNumber || "-_./*?[]{},:+@=%".contains($0) }
      })
    else { return nil }
    let newest =
      "$(shopt -s globstar nullglob; for __runner_f in \(globs.joined(separator: " ")); do "
      + "[ -f \"$__runner_f\" ] && stat -L -c %.9Y -- \"$__runner_f\"; done | LC_ALL=C sort -n | tail -n 1)"
    if unix { return "$(__runner_ts=\(newest); echo \"${__runner_ts:-0}\" | cut -d. -f1)" }
    return "$(__runner_ts=\(newest); date -d \"@${__runner_ts:-0}\" '+%Y-%m-%d %H:%M:%S.%N %z %Z' "
      + "| sed -E 's/(\\.[0-9]*[1-9])0+ /\\1 /; s/\\.0+ / /')"
  }

  /// `text` in single quotes for the shell.
  static func quoted(_ text: String) -> String { TasksFileWriter.shellQuoted(text) }

  /// The shell quoting at a point of a command.
  enum Quoting { case none, single, double }

  /// go-task's template functions for the host, and runner's host values for them.
  static let hostFunctions = ["OS": "os", "OS()": "os", "ARCH": "arch", "ARCH()": "arch", "exeExt": "exe_suffix"]

  /// The host value for `name` (`runner.arch`), reporting where runner's spelling differs.
  static func hostValue(_ name: String, line: Int, _ report: inout ImportReport) -> String {
    if name == "runner.arch" {
      report.approximate(
        "{{ARCH}}", at: line, "runner.arch is uname's spelling (x86_64, aarch64), not Go's (amd64, arm64)")
    }
    return "${{ \(name) }}"
  }
}
