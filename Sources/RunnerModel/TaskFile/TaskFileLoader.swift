import Glibc
import RunnerBasics

/// Loads a task file into a validated, acyclic `TaskGraph`.
///
/// Phases: read → YAML → schema → expansion (params, matrix, `.env` files, the command
/// line's params and arguments) → graph (undefined dependencies) → cross-task checks
/// (expressions, image inputs, save paths) → cycles. Each phase reports every problem it
/// finds; a later phase runs only when the earlier ones found none.
package struct TaskFileLoader: Sendable {
  package var aliasBudget = YAMLParser.defaultAliasBudget
  /// The command line's params, targets and arguments.
  package var invocation = Invocation()
  /// runner's environment, which `.env` files do not override and `${NAME}` reads.
  package var environment = ProcessEnvironment.current
  /// Runs a param's `default: { sh: CMD }` in a directory: its exit status and stdout.
  package var commandOutput: @Sendable (_ command: String, _ directory: String) -> (status: Int32, output: String) =
    LoadTimeShell.shell
  /// The files globs match in a directory, for `for: { files: }` (runner's source globs);
  /// without it, such a `for:` is an error.
  package var matchFiles: (@Sendable (_ patterns: [String], _ directory: String) -> [String])?
  /// Included files' text as an editor holds it, unsaved, by absolute path (`FilePath.lexical`).
  package var unsaved: [String: [UInt8]] = [:]

  package init(invocation: Invocation = Invocation()) {
    self.invocation = invocation
  }

  /// - Parameter path: the file as the user named it; messages repeat it as given.
  /// - Throws: `DiagnosticList` (always with at least one error).
  package func load(path: String) throws(DiagnosticList) -> TaskGraph {
    if let file = try decodeLarge(path: path) { return try graph(of: withIncludes(file, path: path)) }
    return try load(bytes: Self.read(path, streams: true), path: path)
  }

  /// - Parameter streams: the root file may be a pipe (`runner -f <(generate)`); an include
  ///   must be a regular file.
  static func read(_ path: String, streams: Bool = false) throws(DiagnosticList) -> [UInt8] {
    do {
      return try FileReader.read(path, streams: streams)
    } catch {
      throw DiagnosticList([.error(error, at: nil)])
    }
  }

  /// - Parameter bytes: consumed: a large file's text is let go once it is decoded.
  package func load(bytes: consuming [UInt8], path: String) throws(DiagnosticList) -> TaskGraph {
    try graph(of: outline(bytes: bytes, path: path))
  }

  /// The file as written, its includes read and merged (namespaced names, every task's own
  /// location), nothing expanded and nothing run: what an editor outlines and completes.
  package func outline(bytes: consuming [UInt8], path: String) throws(DiagnosticList) -> TaskFile {
    let file = try decode(bytes: bytes, path: path)
    _ = consume bytes
    return try withIncludes(file, path: path)
  }

  /// `file` with its includes read and merged.
  func withIncludes(_ written: consuming TaskFile, path: String) throws(DiagnosticList) -> TaskFile {
    var file = written
    if !file.includes.isEmpty {
      var resolver = IncludeResolver(root: file, loader: self)
      file = try resolver.resolve(file)
    } else {
      file.scopes = [IncludeScope(namespace: "", path: path, fileDirectory: file.directory, parent: nil)]
    }
    return file
  }

  /// What an editor shows: the outline when the file gets that far, and every problem loading
  /// finds (none when it loads), from one reading of the text.
  package func check(bytes: consuming [UInt8], path: String) -> (outline: TaskFile?, problems: [Diagnostic]) {
    let file: TaskFile
    do {
      file = try outline(bytes: bytes, path: path)
    } catch {
      return (nil, error.diagnostics)
    }
    do {
      _ = try graph(of: copy file)
      return (file, [])
    } catch {
      return (file, error.diagnostics)
    }
  }

  /// The rest of loading, from the outline: aliases, expansion, the graph and its checks.
  func graph(of outline: consuming TaskFile) throws(DiagnosticList) -> TaskGraph {
    var file = consume outline
    var invocation = invocation
    // Fields read one at a time (a whole task read is a copy): most tasks set no rare field.
    if file.tasks.indices.contains(where: { file.tasks[$0].setsRareFields && !file.tasks[$0].aliases.isEmpty }) {
      try Self.resolveAliases(&file)
      invocation.targets = invocation.targets.map(file.resolvingAlias)
    }
    var expander = TaskFileExpander(file: file, invocation: invocation, environment: environment)
    expander.commandOutput = commandOutput
    let expanded = try expander.expand()
    let graph = try TaskGraph(file: expanded)
    var checks = GraphChecks(graph: graph)
    checks.run()
    guard checks.diagnostics.isEmpty else { throw DiagnosticList(checks.diagnostics) }
    let cycles = CycleDetector(graph: graph).cycles()
    guard cycles.isEmpty else { throw DiagnosticList(cycles.map { Self.diagnose($0, in: graph) }) }
    return graph
  }

  /// The table of aliases, each checked against the task names and the other aliases; `deps`
  /// and calls that name an alias then name its task.
  static func resolveAliases(_ file: inout TaskFile) throws(DiagnosticList) {
    let names = Set(file.tasks.map(\.name))
    var table: [String: String] = [:]
    var diagnostics: [Diagnostic] = []
    for task in file.tasks {
      for alias in task.aliases {
        if names.contains(alias) {
          diagnostics.append(
            Diagnostic(.error, "alias '\(alias)' of task '\(task.name)' is the name of a task", at: task.location))
        } else if let other = table[alias], other != task.name {
          diagnostics.append(
            Diagnostic(
              .error, "alias '\(alias)' of task '\(task.name)' is an alias of '\(other)' too", at: task.location))
        } else {
          table[alias] = task.name
        }
      }
    }
    guard diagnostics.isEmpty else { throw DiagnosticList(diagnostics) }
    file.aliases = table
    let resolved = file
    // What reads a dependency's outputs names it as the dependency does: by its alias too.
    let resolving = { (name: String) in resolved.resolvingAlias(name) }
    let renameOutputs = { (template: Template) -> Template in
      var renamed = template
      renamed.parts = template.parts.map {
        guard case .output(let name, let key) = $0 else { return $0 }
        return .output(task: resolving(name), key: key)
      }
      return renamed
    }
    for index in file.tasks.indices {
      for position in file.tasks[index].dependencies.indices {
        // Written only when it changes: a write copies the task's packed list into its own.
        let name = file.tasks[index].dependencies[position].name
        let target = resolved.resolvingAlias(name)
        if target != name { file.tasks[index].dependencies[position].name = target }
        // One write: `with` is kept out of line, and each write makes its box anew.
        let with = file.tasks[index].dependencies[position].with
        if !with.isEmpty {
          file.tasks[index].dependencies[position].with = with.map {
            var value = $0
            value.value = renameOutputs(value.value)
            return value
          }
        }
      }
      for position in file.tasks[index].environment.indices {
        file.tasks[index].environment[position].value = renameOutputs(file.tasks[index].environment[position].value)
      }
      if case .expression(let expression) = file.tasks[index].condition {
        file.tasks[index].condition = .expression(expression.renamingOutputs(resolving))
      }
      guard case .shell(let commands) = file.tasks[index].action, commands.contains(where: { $0.call != nil }) else {
        continue
      }
      file.tasks[index].action = .shell(
        PackedList(
          commands.lazy.map { command in
            var renamed = command
            if let name = command.call?.name { renamed.call?.name = resolved.resolvingAlias(name) }
            return renamed
          }))
    }
    file.defaultTargets = file.defaultTargets.map {
      var target = $0
      target.name = resolved.resolvingAlias(target.name)
      return target
    }
  }

  /// Reads one file as far as its schema: no includes, nothing expanded. An editor's unsaved
  /// text of the file (`unsaved`) stands for what is on disk.
  func decode(path: String) throws(DiagnosticList) -> TaskFile {
    if !unsaved.isEmpty, let text = unsaved[FilePath.lexical(path)] { return try decode(bytes: text, path: path) }
    if let file = try decodeLarge(path: path) { return file }
    return try decode(bytes: Self.read(path), path: path)
  }

  /// From this size on, a regular file is parsed as it is read (`decodeLarge`).
  static let largeFileSize = 1 << 20

  /// A regular file of `largeFileSize` or more, parsed as it is read: its text is never held
  /// whole (56 MB of a million-task file's 400 at the end of the parse). The checks the whole
  /// text gets first (UTF-8) and the explanations of a YAML error read the file again, only
  /// when the parse fails. Nil when the file is not such a file (`decode(bytes:path:)` reads it).
  func decodeLarge(path: String) throws(DiagnosticList) -> TaskFile? {
    guard let opened = FileReader.openLarge(path, atLeast: Self.largeFileSize) else { return nil }
    defer { close(opened.descriptor) }
    var parser = YAMLParser(file: path)
    parser.aliasBudget = aliasBudget
    var decoder = TaskFileDecoder(path: path, directory: Self.directory(of: path))
    decoder.matchFiles = matchFiles
    decoder.commandOutput = commandOutput
    // A task of a generated file takes 40 to 100 bytes: room for one every 64 (4 bytes a slot,
    // two slots a task: an eighth of the file's size) spares the index most of its growths.
    decoder.streamedNames = NameIndex(expecting: opened.size / 64)
    let root: YAMLNode
    do throws(Diagnostic) {
      guard
        let parsed = try parser.parse(
          reading: opened.descriptor, size: opened.size, limit: FileReader.maximumSize, streaming: "tasks",
          to: &decoder)
      else { throw Diagnostic.error(.emptyFile, at: SourceLocation(file: path, line: 1, column: 1)) }
      root = parsed
    } catch {
      throw explained(error, path: path)
    }
    return try decoder.decode(consume root)
  }

  /// A YAML error of a file parsed as it was read, with what the whole text shows: bytes that
  /// are not UTF-8 (libyaml's reader stops there without a place), a tab, the line.
  private func explained(_ error: Diagnostic, path: String) -> DiagnosticList {
    guard let bytes = try? FileReader.read(path) else { return DiagnosticList([error]) }
    if let invalid = Self.firstInvalidUTF8(bytes) {
      return DiagnosticList([
        .error(
          .notUTF8(byte: bytes[invalid.offset]),
          at: SourceLocation(file: path, line: invalid.line, column: invalid.column))
      ])
    }
    return DiagnosticList([Self.explainYAML(Self.explainTab(error, bytes: bytes), bytes: bytes)])
  }

  package func decode(bytes: [UInt8], path: String) throws(DiagnosticList) -> TaskFile {
    if let invalid = Self.firstInvalidUTF8(bytes) {
      throw DiagnosticList([
        .error(
          .notUTF8(byte: bytes[invalid.offset]),
          at: SourceLocation(file: path, line: invalid.line, column: invalid.column))
      ])
    }
    var parser = YAMLParser(file: path)
    parser.aliasBudget = aliasBudget
    var decoder = TaskFileDecoder(path: path, directory: Self.directory(of: path))
    decoder.matchFiles = matchFiles
    decoder.commandOutput = commandOutput
    let root: YAMLNode
    do {
      guard let parsed = try parser.parse(bytes, streaming: "tasks", to: &decoder) else {
        throw Diagnostic.error(.emptyFile, at: SourceLocation(file: path, line: 1, column: 1))
      }
      root = parsed
    } catch let error as Diagnostic {
      throw DiagnosticList([Self.explainYAML(Self.explainTab(error, bytes: bytes), bytes: bytes)])
    } catch {
      throw DiagnosticList([Diagnostic(.error, "\(error)")])
    }
    // Handed over, not shared: the decoder lets each task's nodes go once it is decoded.
    return try decoder.decode(consume root)
  }

  /// Where the first byte that is not valid UTF-8 sits (libyaml reports it without a position).
  static func firstInvalidUTF8(_ bytes: [UInt8]) -> (offset: Int, line: Int, column: Int)? {
    // Most task files are ASCII: one pass that the compiler vectorises settles them.
    if bytes.withUnsafeBufferPointer({ $0.allSatisfy { $0 < 0x80 } }) { return nil }
    var decoder = UTF8()
    var iterator = bytes.makeIterator()
    var offset = 0
    var line = 1
    var lineStart = 0
    while true {
      let before = offset
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar):
        offset += UTF8.width(scalar)
        if scalar == "\n" {
          line += 1
          lineStart = offset
        }
      case .emptyInput:
        return nil
      case .error:
        let column = String(decoding: bytes[lineStart..<before], as: UTF8.self).count + 1
        return (before, line, column)
      }
    }
  }

  package static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// libyaml's words for the usual mistakes, with the fix: an unquoted value that holds
  /// `: `, a `:name` in a `[ ]` list, a line indented deeper or shallower than its siblings.
  static func explainYAML(_ diagnostic: Diagnostic, bytes: [UInt8]) -> Diagnostic {
    guard let location = diagnostic.location, diagnostic.message.hasPrefix("invalid YAML") else { return diagnostic }
    let text = line(location.line, of: bytes)
    let before = String(text.prefix(max(0, location.column - 1)))
    var hint: String?
    if diagnostic.message.contains("mapping values are not allowed") {
      let trimmed = before.drop { $0 == " " }
      if let colon = trimmed.firstRange(of: ": ") {
        let key = trimmed[..<colon.lowerBound].drop { $0 == "-" || $0 == " " }
        let value = text.drop { $0 == " " }.dropFirst(trimmed.distance(from: trimmed.startIndex, to: colon.upperBound))
        hint = "a value that holds ': ' must be quoted: \(key): '\(value.replacing("'", with: "''"))'"
      } else {
        hint = "this line is indented deeper than the key above it: line it up with its siblings"
      }
    } else if diagnostic.message.contains("while parsing a flow node"), text.dropFirst(before.count).first == ":" {
      hint =
        "a name that starts with ':' must be quoted inside [ ]: '\(text.dropFirst(before.count).prefix { $0 != "," && $0 != "]" })'"
    } else if diagnostic.message.contains("did not find expected key") {
      hint = "this line lines up with no key above it: check its indentation"
    }
    guard let hint else { return diagnostic }
    var result = diagnostic
    result.message += " (\(hint))"
    return result
  }

  /// Line `number` (1-based) of `bytes`, without its newline.
  static func line(_ number: Int, of bytes: [UInt8]) -> String {
    var line = 1
    var start = 0
    while start < bytes.count, line < number {
      if bytes[start] == UInt8(ascii: "\n") { line += 1 }
      start += 1
    }
    var end = start
    while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
    return String(decoding: bytes[start..<end], as: UTF8.self)
  }

  /// libyaml says "found character that cannot start any token" for a tab; say why.
  static func explainTab(_ diagnostic: Diagnostic, bytes: [UInt8]) -> Diagnostic {
    guard let location = diagnostic.location, diagnostic.message.contains("cannot start any token") else {
      return diagnostic
    }
    var line = 1
    var offset = 0
    while offset < bytes.count, line < location.line {
      if bytes[offset] == UInt8(ascii: "\n") { line += 1 }
      offset += 1
    }
    let column = offset + location.column - 1
    guard column < bytes.count, bytes[column] == UInt8(ascii: "\t") else { return diagnostic }
    var result = diagnostic
    result.message += " (a tab: YAML indents with spaces only)"
    return result
  }

  static func diagnose(_ cycle: CycleDetector.Cycle, in graph: TaskGraph) -> Diagnostic {
    let names = (cycle.path + [cycle.path[0]]).map { graph[$0].name }
    var notes: [Diagnostic] = cycle.path.indices.map { position in
      let from = cycle.path[position]
      let to = cycle.path[(position + 1) % cycle.path.count]
      return .note(
        "'\(graph[from].name)' depends on '\(graph[to].name)' here", at: graph.edgeLocation(from: from, to: to))
    }
    if cycle.componentSize > cycle.path.count {
      notes.append(
        .note("\(cycle.componentSize - cycle.path.count) more task(s) form interlocking cycles with these"))
    }
    if let (from, to) = cycle.breakingEdge {
      let edge =
        from == to
        ? "'\(graph[from].name)' from its own deps" : "'\(graph[to].name)' from the deps of '\(graph[from].name)'"
      notes.append(.note("removing \(edge) (\(graph.edgeLocation(from: from, to: to))) breaks this cycle"))
    } else {
      notes.append(.note("no single edge removal breaks every cycle among these tasks"))
    }
    let first = graph.edgeLocation(from: cycle.path[0], to: cycle.path[cycle.path.count > 1 ? 1 : 0])
    return .error(.cycle(names), at: first, notes: notes)
  }
}
