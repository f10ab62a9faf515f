import Glibc

/// `for:` on a task call or a `deps` entry: the values the call is repeated over.
extension TaskFileDecoder {
  /// The calls `item` stands for: itself, or with a `for:`, one per value, `${{ item }}` standing
  /// for it (without the `for:` key). `found`: the values were found when the file loaded
  /// (`{ files: }`, `{ sh: }`), not written.
  mutating func repeating(_ item: YAMLNode, what: @autoclosure () -> String, task: inout TaskDefinition)
    -> (calls: [YAMLNode], found: Bool)
  {
    guard case .mapping(let entries) = item.kind, let values = entries.first(where: { $0.name == "for" }) else {
      return ([item], false)
    }
    let call = YAMLNode(.mapping(entries.filter { $0.name != "for" }), at: item.location)
    let what = "'for' in \(what())"
    let found: Bool
    let list: [(String, SourceLocation)]
    switch values.value.kind {
    case .mapping:
      found = true
      task.repeatsAtLoad = true
      list = foundValues(values.value, what: what)
    case .sequence:
      found = false
      list = reader.strings(values.value, what: what) ?? []
    case .scalar:
      // go-task's `for: sources` is no list of one word.
      reader.fail(
        .invalidValue(
          what: what, reason: "takes a list of values, { files: GLOBS } or { sh: CMD } (a single word is no list)"),
        at: values.value)
      return ([], false)
    }
    let calls = list.compactMap { value -> YAMLNode? in
      // An item is text, not an expression: pasted in, it would be read as one.
      guard !value.0.contains("${{") else {
        reader.fail(.invalidValue(what: what, reason: "holds '${{': its items are plain text"), at: values.value)
        return nil
      }
      return call.replacingItem(with: value.0)
    }
    return (calls, found)
  }

  /// `{ files: [GLOB…] }`: the files the globs match, relative to the task's directory, sorted;
  /// `{ sh: CMD }`: the words CMD prints, run there with `sh`. Both when the file loads. What
  /// cannot be found fails the task when it runs (`foundFailures`), not the whole file.
  mutating func foundValues(_ node: YAMLNode, what: String) -> [(String, SourceLocation)] {
    guard let keys = reader.mapping(node, what: what, allowed: ["files", "sh"]) else { return [] }
    guard keys.count == 1, let key = keys.first, ["files", "sh"].contains(key.name) else {
      if keys.count != 1 {
        reader.fail(.invalidValue(what: what, reason: "takes a list, or one of 'files' and 'sh'"), at: node)
      }
      return []
    }
    guard let directory = taskDirectory else {
      reader.fail(
        .invalidValue(what: what, reason: "is found when the file loads: the task's 'dir' cannot hold '${{'"),
        at: node)
      return []
    }
    let location = key.value.location
    if key.name == "files" {
      guard
        let patterns = reader.strings(key.value, what: "'files' in \(what)", expected: "a glob or a list of globs")?
          .map(\.0)
      else { return [] }
      guard let matchFiles else {
        reader.fail(.invalidValue(what: what, reason: "cannot list files here"), at: node)
        return []
      }
      return matchFiles(patterns, directory).map { ($0, location) }
    }
    guard let command = reader.string(key.value, what: "'sh' in \(what)") else { return [] }
    guard access(directory, F_OK) == 0 else {
      foundFailures.append("\(location): \(what): the directory '\(directory)' does not exist")
      return []
    }
    let result = commandOutput(command, directory)
    guard result.status == 0 else {
      foundFailures.append("\(location): \(what): '\(command)' failed (exit status \(result.status))")
      return []
    }
    return result.output.split(whereSeparator: \.isWhitespace).map { (String($0), location) }
  }

  /// A task whose `for:` could not find its values fails when it runs, saying why; the rest of
  /// the file loads (`runner build` must not fail over `release`'s `for:`).
  mutating func failForFoundValues(_ task: inout TaskDefinition, at node: YAMLNode) {
    guard !foundFailures.isEmpty else { return }
    defer { foundFailures = [] }
    if case .image = task.action {
      reader.fail(.invalidValue(what: "task '\(task.name)'", reason: foundFailures.joined(separator: "; ")), at: node)
      return
    }
    let message = "runner: " + foundFailures.joined(separator: "; ")
    task.action = .shell([
      Command(text: "echo '" + message.replacing("'", with: "'\\''") + "' >&2; exit 1", location: task.location)
    ])
    task.shell = ["sh", "-c"]
  }
}
