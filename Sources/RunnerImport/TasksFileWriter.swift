import RunnerBasics

/// Writes an `ImportedFile` as runner's YAML: keys in a fixed order, every string quoted only
/// where YAML would read it otherwise, scripts of several lines as block scalars.
package struct TasksFileWriter {
  package init() {}

  package func write(_ file: ImportedFile) -> String {
    var out = ""
    for line in file.header { out += line.isEmpty ? "#\n" : "# \(line)\n" }
    if !file.header.isEmpty { out += "\n" }
    if !file.defaultTargets.isEmpty { out += "default: \(flow(file.defaultTargets))\n" }
    if let argv = file.shellArguments {
      out += "shell: \(flow(argv))\n"
    } else if let shell = file.shell {
      out += "shell: \(Self.scalar(shell))\n"
    }
    if !file.includes.isEmpty {
      out += "includes:\n"
      for include in file.includes {
        var fields = ["path: \(Self.scalar(include.path))"]
        if include.optional { fields.append("optional: true") }
        if let directory = include.directory { fields.append("dir: \(Self.scalar(directory))") }
        if !include.with.isEmpty {
          let values = include.with.map { "\(Self.scalar($0.name)): \(Self.scalar($0.value))" }
          fields.append("with: { \(values.joined(separator: ", ")) }")
        }
        let written = fields.count == 1 ? Self.scalar(include.path) : "{ \(fields.joined(separator: ", ")) }"
        out += "  \(Self.scalar(include.namespace)): \(written)\n"
      }
    }
    if !file.dotenv.isEmpty { out += "dotenv: \(paths(file.dotenv))\n" }
    out += params(file.params, indent: "")
    out += mapping("env", file.environment, indent: "")
    if !out.isEmpty, !out.hasSuffix("\n\n") { out += "\n" }
    out += file.tasks.isEmpty ? "tasks: {}\n" : "tasks:\n"
    for (index, task) in file.tasks.enumerated() {
      if index > 0 { out += "\n" }
      out += write(task)
    }
    return out
  }

  func write(_ task: ImportedTask) -> String {
    var out = ""
    for line in task.comments { out += "  # \(line)\n" }
    out += "  \(Self.scalar(task.name)):\n"
    let indent = "    "
    if let description = task.description { out += "\(indent)desc: \(Self.scalar(description))\n" }
    if !task.aliases.isEmpty { out += "\(indent)aliases: \(flow(task.aliases))\n" }
    out += params(task.params, indent: indent)
    if !task.dependencies.isEmpty {
      if task.dependencies.allSatisfy({ $0.with.isEmpty && !$0.passesArguments }) {
        out += "\(indent)deps: \(flow(task.dependencies.map(\.name)))\n"
      } else {
        out += "\(indent)deps:\n"
        for dependency in task.dependencies { out += "\(indent)  - \(call(dependency))\n" }
      }
    }
    if !task.dotenv.isEmpty { out += "\(indent)dotenv: \(paths(task.dotenv))\n" }
    out += mapping("env", task.environment, indent: indent)
    if let directory = task.directory { out += "\(indent)dir: \(Self.scalar(directory))\n" }
    if let condition = task.condition { out += "\(indent)if: \(Self.scalar(condition))\n" }
    if let prompt = task.prompt { out += "\(indent)prompt: \(Self.scalar(prompt))\n" }
    if !task.preconditions.isEmpty {
      out += "\(indent)preconditions:\n"
      for (command, message) in task.preconditions {
        if let message {
          out += "\(indent)  - sh: \(Self.scalar(command))\n\(indent)    msg: \(Self.scalar(message))\n"
        } else {
          out += "\(indent)  - \(Self.scalar(command))\n"
        }
      }
    }
    if !task.sources.isEmpty { out += "\(indent)sources: \(flow(task.sources))\n" }
    if !task.outputs.isEmpty { out += "\(indent)outputs: \(flow(task.outputs))\n" }
    if task.isInternal { out += "\(indent)internal: true\n" }
    if task.isInteractive { out += "\(indent)interactive: true\n" }
    if let argv = task.shellArguments {
      out += "\(indent)shell: \(flow(argv))\n"
    } else if let shell = task.shell {
      out += "\(indent)shell: \(Self.scalar(shell))\n"
    }
    switch task.commands.count {
    case 0:
      if task.dependencies.isEmpty { out += "\(indent)run: \"true\"\n" }
    case 1:
      if case .shell(let script) = task.commands[0] {
        out += "\(indent)run: \(Self.scalar(script, blockIndent: indent + "  "))\n"
        break
      }
      fallthrough
    default:
      out += "\(indent)run:\n"
      for command in task.commands {
        switch command {
        case .shell(let script): out += "\(indent)  - \(Self.scalar(script, blockIndent: indent + "    "))\n"
        case .call(let dependency): out += "\(indent)  - \(call(dependency))\n"
        }
      }
    }
    return out
  }

  func call(_ dependency: ImportedDependency) -> String {
    var loop =
      dependency.forEach.isEmpty ? "" : ", for: [\(dependency.forEach.map { Self.scalar($0) }.joined(separator: ", "))]"
    switch dependency.forFound {
    case .files(let patterns)?: loop = ", for: { files: [\(patterns.map { Self.scalar($0) }.joined(separator: ", "))] }"
    case .command(let command)?: loop = ", for: { sh: \(Self.scalar(command)) }"
    case nil: break
    }
    let arguments = dependency.passesArguments ? ", args: pass" : ""
    guard !dependency.with.isEmpty else { return "{ task: \(Self.scalar(dependency.name))\(loop)\(arguments) }" }
    let values = dependency.with.map { "\(Self.scalar($0.name)): \(Self.scalar($0.value))" }
    return
      "{ task: \(Self.scalar(dependency.name))\(loop), with: { \(values.joined(separator: ", ")) }\(arguments) }"
  }

  func params(_ params: [ImportedParam], indent: String) -> String {
    guard !params.isEmpty else { return "" }
    var out = "\(indent)params:\n"
    for param in params {
      var fields: [String] = []
      if let command = param.defaultCommand {
        fields.append("default: { sh: \(Self.scalar(command)) }")
      } else if let value = param.defaultValue {
        fields.append("default: \(Self.scalar(value))")
      }
      if param.required { fields.append("required: true") }
      if !param.choices.isEmpty {
        fields.append("choices: [\(param.choices.map { Self.scalar($0) }.joined(separator: ", "))]")
      }
      if let description = param.description { fields.append("desc: \(Self.scalar(description))") }
      if fields.isEmpty { fields.append("default: \"\"") }
      out += "\(indent)  \(param.name): { \(fields.joined(separator: ", ")) }\n"
    }
    return out
  }

  func mapping(_ key: String, _ entries: [(name: String, value: String)], indent: String) -> String {
    guard !entries.isEmpty else { return "" }
    var out = "\(indent)\(key):\n"
    for entry in entries { out += "\(indent)  \(Self.scalar(entry.name)): \(Self.scalar(entry.value))\n" }
    return out
  }

  func paths(_ paths: [ImportedPath]) -> String {
    let items = paths.map { entry in
      var fields = entry.command.map { ["sh: \(Self.scalar($0))"] } ?? ["path: \(Self.scalar(entry.path))"]
      if entry.optional { fields.append("optional: true") }
      if entry.overrides { fields.append("override: true") }
      return fields.count == 1 && entry.command == nil
        ? Self.scalar(entry.path) : "{ \(fields.joined(separator: ", ")) }"
    }
    return items.count == 1 && !items[0].hasPrefix("{") ? items[0] : "[\(items.joined(separator: ", "))]"
  }

  func flow(_ items: [String]) -> String {
    "[\(items.map { Self.scalar($0) }.joined(separator: ", "))]"
  }

  /// `text` as a YAML scalar: plain where YAML reads it back as the same string, a block
  /// literal (`|-`) for several lines when `blockIndent` is given, else double-quoted.
  static func scalar(_ text: String, blockIndent: String? = nil) -> String {
    if let blockIndent, text.contains("\n"), let block = block(text, indent: blockIndent) { return block }
    if isPlain(text) { return text }
    // A JSON string is a YAML double-quoted scalar.
    var out = ""
    JSONValue.escape(text, into: &out)
    return out
  }

  /// `text` in single quotes for a POSIX shell (`'` written as `'\''`).
  static func shellQuoted(_ text: String) -> String {
    "'" + text.replacing("'", with: "'\\''") + "'"
  }

  static let reserved: Set<String> = [
    "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~",
  ]

  static func isPlain(_ text: String) -> Bool {
    guard let first = text.first, let last = text.last, !first.isWhitespace, !last.isWhitespace else { return false }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) { return false }
    if reserved.contains(text.lowercased()) || Double(text) != nil || text.hasPrefix("0x") { return false }
    if text.contains(": ") || text.contains(" #") || text.hasSuffix(":") { return false }
    // Plain scalars are also written inside flow collections (`[a, b]`, `{ task: … }`).
    if text.contains(where: { "[]{},".contains($0) }) { return false }
    if text.contains(where: { $0.isNewline || $0 == "\t" || ($0.asciiValue.map { $0 < 0x20 } ?? false) }) {
      return false
    }
    return true
  }

  /// A `|-` (or `|`) block of `text`'s lines, or nil where a block cannot hold it exactly
  /// (a first line that starts with a space, trailing blanks or tabs that YAML would keep or
  /// lose differently).
  static func block(_ text: String, indent: String) -> String? {
    var body = text
    var chomp = "-"
    if body.hasSuffix("\n") {
      body.removeLast()
      chomp = ""
      if body.hasSuffix("\n") { return nil }
    }
    let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
    if lines.first?.first?.isWhitespace ?? true { return nil }
    for line in lines where line.last?.isWhitespace == true || line.contains("\r") { return nil }
    return "|\(chomp)\n" + lines.map { $0.isEmpty ? "" : indent + $0 }.joined(separator: "\n")
  }
}
