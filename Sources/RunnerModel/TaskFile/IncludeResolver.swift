import Glibc
import RunnerBasics

/// Reads the files a task file includes, and theirs, into one file: an included file's tasks
/// become `NAMESPACE:task` (nested: `a:b:task`), run in their file's directory, and keep their
/// file's `env`, `dotenv` and params as a scope of their own. Inside an included file a bare
/// name is a task of that file and `:name` one of the root file. An include's `default` (or
/// its task named `default`) is what the bare target `NAMESPACE` runs, unless a file defines a
/// task of that name.
///
/// Errors: a missing file that is not optional, an include cycle and a namespace given twice
/// are reported at the including line; an included file's own errors at its path:line:col.
struct IncludeResolver {
  let loader: TaskFileLoader
  var diagnostics: [Diagnostic] = []
  private var merged: TaskFile
  private var groups: [TaskDefinition] = []
  /// The renamed tasks' `deps` and `run`, packed as the decoder packs them.
  private var dependencyPacker = PackedList<Dependency>.Packer()
  private var commandPacker = PackedList<Command>.Packer()
  /// Optional includes whose file is not there: their namespace, path and declaration.
  private var absent: [(namespace: String, path: String, location: SourceLocation)] = []
  /// The scope that first included a file, by what makes another include of it the same tasks.
  private var shared: [String: Int] = [:]

  init(root: TaskFile, loader: TaskFileLoader) {
    self.loader = loader
    merged = root
    merged.tasks = []
    merged.scopes = [IncludeScope(namespace: "", path: root.path, fileDirectory: root.directory, parent: nil)]
  }

  /// - Throws: `DiagnosticList` with every problem found in every file.
  mutating func resolve(_ root: TaskFile) throws(DiagnosticList) -> TaskFile {
    add(root, scope: 0, relativeDirectory: nil)
    include(root.includes, of: root, scope: 0, stack: [Self.canonical(root.path)])
    // A task a file defines under an include's name wins over the include's default (go-task's rule).
    let defined = Set(merged.tasks.map(\.name))
    for group in groups {
      if !defined.contains(group.name) {
        merged.tasks.append(group)
      } else {
        // Shadowed here, its second names may not be: each stays the include's default there.
        for alias in group.aliases where !defined.contains(alias) {
          var named = group
          named.name = alias
          named.aliases = []
          merged.tasks.append(named)
        }
      }
    }
    // A second name a file's own task already has is that task's (the task wins).
    let taken = Set(merged.tasks.map(\.name))
    for index in merged.tasks.indices where !merged.tasks[index].aliases.isEmpty {
      merged.tasks[index].aliases.removeAll { taken.contains($0) }
    }
    addAbsentTasks()
    var seen: [String: SourceLocation] = [:]
    for index in merged.tasks.indices {
      merged.tasks[index].index = index
      let task = merged.tasks[index]
      if let first = seen[task.name] {
        diagnostics.append(
          .error(
            .invalidValue(what: "task '\(task.name)'", reason: "is defined twice (first at \(first))"),
            at: task.location))
      }
      seen[task.name] = task.location
    }
    guard diagnostics.isEmpty else { throw DiagnosticList(diagnostics) }
    return merged
  }

  private mutating func include(_ includes: [IncludeDeclaration], of file: TaskFile, scope: Int, stack: [String]) {
    var namespaces: [String: SourceLocation] = [:]
    for declaration in includes {
      // `~/…` is under the home directory, as the shell reads it.
      let written =
        declaration.path.hasPrefix("~/")
        ? (loader.environment["HOME"] ?? "~") + declaration.path.dropFirst(1) : declaration.path
      let pattern = Self.join(file.directory, written)
      let isGlob = declaration.path.contains { "*?[".contains($0) }
      let matches = isGlob ? Self.glob(pattern) : [pattern]
      // The no-op record must not outlive an edit of any of these (or a new match of a glob).
      merged.otherFiles.append(pattern)
      for path in matches {
        let namespace = declaration.namespace == "*" ? Self.directoryName(of: path) : declaration.namespace
        if let first = namespaces[namespace] {
          diagnostics.append(
            .error(
              .invalidValue(what: "namespace '\(namespace)'", reason: "is included twice (first at \(first))"),
              at: declaration.location))
          continue
        }
        namespaces[namespace] = declaration.location
        let canonical = Self.canonical(path)
        if stack.contains(canonical) {
          let chain = (stack + [canonical]).map { Self.shown($0) }.joined(separator: " -> ")
          diagnostics.append(Diagnostic(.error, "include cycle: \(chain)", at: declaration.location))
          continue
        }
        merged.otherFiles.append(path)
        let child: TaskFile
        do {
          child = try loader.decode(path: path)
        } catch {
          // A symlink loop is there (lstat) but cannot be reached: said as such, not "not found".
          let missing = access(path, F_OK) != 0 && errno != ELOOP
          if declaration.isOptional, missing {
            let parentNamespace = merged.scopes[scope].namespace
            absent.append(
              (parentNamespace.isEmpty ? namespace : parentNamespace + ":" + namespace, path, declaration.location))
            continue
          }
          if missing {
            diagnostics.append(
              Diagnostic(
                .error,
                "included file '\(path)' not found (mark it optional: { path: \(declaration.path), optional: true })",
                at: declaration.location))
          } else {
            // A directory or an unreadable file says so at the including line.
            diagnostics.append(
              contentsOf: error.diagnostics.map { diagnostic in
                var placed = diagnostic
                if placed.location == nil { placed.location = declaration.location }
                return placed
              })
          }
          continue
        }
        let parentNamespace = merged.scopes[scope].namespace
        var childScope = IncludeScope(
          namespace: parentNamespace.isEmpty ? namespace : parentNamespace + ":" + namespace, path: path,
          fileDirectory: child.directory, parent: scope)
        childScope.params = child.params
        childScope.with = declaration.with
        for value in declaration.with where !child.params.contains(where: { $0.name == value.name }) {
          let known = child.params.map(\.name)
          let hint =
            Suggestion.closest(to: value.name, in: known).map { " (did you mean '\($0)'?)" }
            ?? (known.isEmpty ? "" : " (params: \(known.joined(separator: ", ")))")
          diagnostics.append(
            Diagnostic(
              .error, "'with' sets '\(value.name)', which is not a param of \(Self.shown(path))\(hint)",
              at: value.location))
        }
        childScope.environment = child.environment
        childScope.dotenv = child.dotenv
        // `dir:` on the include: its tasks run there instead, relative to the including file
        // where it is (not where its own tasks run: go-task's rule).
        let including = Self.relative(file.directory, to: merged.directory)
        let base =
          declaration.directory.map { $0.hasPrefix("/") ? $0 : Self.join(including, $0) }
          ?? Self.relative(child.directory, to: merged.directory)
        childScope.relativeDirectory = base
        if declaration.directory != nil {
          // Such a `for:` looks in the included file's directory when it is read, before this `dir:`.
          for task in child.tasks where task.repeatsAtLoad {
            diagnostics.append(
              Diagnostic(
                .error,
                "task '\(task.name)' has a 'for:' that finds its values when the file loads, which cannot look in "
                  + "the 'dir' this include gives: write the values, or include the file without 'dir'",
                at: task.location))
          }
        }
        // The same file again, run in the same directory with the same values, and nothing of
        // the including files reaching its tasks: the tasks already there, under this name too.
        let signature = sharedSignature(canonical: canonical, base: base, with: declaration.with, scope: scope)
        if let signature, let first = shared[signature] {
          alias(first, as: childScope.namespace)
          continue
        }
        merged.scopes.append(childScope)
        let index = merged.scopes.count - 1
        if let signature { shared[signature] = index }
        add(child, scope: index, relativeDirectory: base)
        include(child.includes, of: child, scope: index, stack: stack + [canonical])
      }
      if matches.isEmpty, !declaration.isOptional {
        diagnostics.append(Diagnostic(.error, "no file matches '\(declaration.path)'", at: declaration.location))
      }
    }
  }

  /// For each task of an optional include that is not there which a task depends on or calls:
  /// an internal task that fails saying so, so only the tasks that need it fail, when they run.
  private mutating func addAbsentTasks() {
    guard !absent.isEmpty else { return }
    let defined = Set(merged.tasks.map(\.name))
    var wanted: [String] = []
    for task in merged.tasks {
      var names = task.dependencies.map(\.name)
      if case .shell(let commands) = task.action { names += commands.compactMap { $0.call?.name } }
      for name in names where !defined.contains(name) && !wanted.contains(name) { wanted.append(name) }
    }
    for name in wanted {
      guard
        let (_, path, location) = absent.first(where: { name == $0.namespace || name.hasPrefix($0.namespace + ":") })
      else { continue }
      var task = TaskDefinition(name: name, location: location, index: 0)
      task.isInternal = true
      // The values callers give it are its params: the load goes on, the run fails at it.
      for caller in merged.tasks {
        var given = caller.dependencies.filter { $0.name == name }.flatMap(\.with)
        if case .shell(let commands) = caller.action {
          given += commands.compactMap(\.call).filter { $0.name == name }.flatMap(\.with)
        }
        for value in given where !task.params.contains(where: { $0.name == value.name }) {
          var param = ParamDeclaration(name: value.name, location: location)
          param.defaultValue = ""
          task.params.append(param)
        }
      }
      let message = "runner: '\(name)' is a task of \(Self.shown(path)), an optional include that is not there"
      task.action = .shell([
        Command(text: "echo '" + message.replacing("'", with: "'\\''") + "' >&2; exit 1", location: location)
      ])
      merged.tasks.append(task)
    }
  }

  /// What makes two includes of a file one set of tasks, or nil when the including scopes give
  /// its tasks something of theirs (`env`, `.env` files, params).
  private func sharedSignature(canonical: String, base: String, with: [ParamValue], scope: Int) -> String? {
    var level: Int? = scope
    while let current = level, current != 0 {
      let including = merged.scopes[current]
      if !including.environment.isEmpty || !including.dotenv.isEmpty || !including.params.isEmpty { return nil }
      level = including.parent
    }
    let values = with.map { "\($0.name)=\($0.value)" }.joined(separator: "\u{0}")
    return [canonical, Self.lexical(base), values].joined(separator: "\u{1}")
  }

  /// `a/../b/./c` as `b/c`: a relative directory with `.` and `name/..` taken out.
  static func lexical(_ path: String) -> String {
    var parts: [Substring] = []
    for part in path.split(separator: "/", omittingEmptySubsequences: true) where part != "." {
      if part == "..", let last = parts.last, last != ".." {
        parts.removeLast()
      } else {
        parts.append(part)
      }
    }
    let joined = parts.joined(separator: "/")
    return path.hasPrefix("/") ? "/" + joined : (joined.isEmpty ? "." : joined)
  }

  /// Gives the tasks of scope `first` and of the scopes it includes a second name, with
  /// `namespace` in place of its own.
  private mutating func alias(_ first: Int, as namespace: String) {
    let old = merged.scopes[first].namespace
    let parents = merged.scopes.map(\.parent)
    let within = { (scope: Int) -> Bool in
      var level: Int? = scope
      while let current = level {
        if current == first { return true }
        level = current < parents.count ? parents[current] : nil
      }
      return false
    }
    let renamed = { (name: String) -> String? in
      if name == old { return namespace }
      return name.hasPrefix(old + ":") ? namespace + name.dropFirst(old.count) : nil
    }
    for index in merged.tasks.indices where within(merged.tasks[index].scope) {
      let task = merged.tasks[index]
      merged.tasks[index].aliases += ([task.name] + task.aliases).compactMap(renamed)
    }
    for index in groups.indices where within(groups[index].scope) {
      groups[index].aliases += ([groups[index].name] + groups[index].aliases).compactMap(renamed)
    }
    for index in merged.scopes.indices where within(index) {
      merged.scopes[index].otherNamespaces += [merged.scopes[index].namespace].compactMap(renamed)
    }
    for entry in absent {
      if let other = renamed(entry.namespace) { absent.append((other, entry.path, entry.location)) }
    }
  }

  /// Adds a file's tasks, renamed into its scope's namespace.
  private mutating func add(_ file: TaskFile, scope: Int, relativeDirectory: String?) {
    let namespace = merged.scopes[scope].namespace
    let rename = { (name: String) -> String in
      if name.hasPrefix(":") { return String(name.dropFirst()) }
      return namespace.isEmpty ? name : namespace + ":" + name
    }
    for var task in file.tasks {
      task.name = rename(task.name)
      if !task.aliases.isEmpty { task.aliases = task.aliases.map(rename) }
      task.scope = scope
      // A `with:` that reads outputs names its caller's deps: renamed with them.
      let renameWith = { (values: [ParamValue]) -> [ParamValue] in
        values.map { given in
          var given = given
          given.value.parts = given.value.parts.map {
            guard case .output(let name, let key) = $0 else { return $0 }
            return .output(task: rename(name), key: key)
          }
          return given
        }
      }
      task.dependencies = dependencyPacker.pack(
        task.dependencies.map {
          var dependency = $0
          dependency.name = rename(dependency.name)
          dependency.with = renameWith(dependency.with)
          return dependency
        })
      if scope != 0 {
        task.keyEnvironment += file.keyEnvironment
        task.secretNames += file.secretNames.filter { !task.secretNames.contains($0) }
        if let relativeDirectory {
          let own = task.directory ?? ""
          if own.hasPrefix("/") || Template.containsExpression(own) {
            // An absolute one stays; one that reads params is joined once it is filled in.
            task.directory = own
          } else if relativeDirectory != "." || !own.isEmpty {
            task.directory = Self.join(relativeDirectory, own.isEmpty ? "." : own)
          }
        }
      }
      if namespace.isEmpty && !task.dependencies.contains(where: { $0.name.hasPrefix(":") }) {
        merged.tasks.append(task)
        continue
      }
      for position in task.environment.indices {
        task.environment[position].value.parts = task.environment[position].value.parts.map {
          guard case .output(let name, let key) = $0 else { return $0 }
          return .output(task: rename(name), key: key)
        }
      }
      if case .expression(let expression) = task.condition {
        task.condition = .expression(expression.renamingOutputs(rename))
      }
      if case .shell(let commands) = task.action, commands.contains(where: { $0.call != nil }) {
        task.action = .shell(
          commandPacker.pack(
            commands.map { command in
              var renamed = command
              renamed.call?.name = rename(command.call?.name ?? "")
              renamed.call?.with = renameWith(command.call?.with ?? [])
              return renamed
            }))
      }
      merged.tasks.append(task)
    }
    guard scope != 0 else { return }
    var defaults = file.defaultTargets.map { Dependency(name: rename($0.name), location: $0.location) }
    if defaults.isEmpty, let task = file.tasks.first(where: { $0.name == "default" }) {
      defaults = [Dependency(name: rename(task.name), location: task.location)]
    }
    guard !defaults.isEmpty else { return }
    var group = TaskDefinition(name: namespace, location: defaults[0].location, index: 0)
    group.description = "The default of \(merged.scopes[scope].path)"
    group.dependencies = PackedList(defaults)
    group.scope = scope
    groups.append(group)
  }

  static func join(_ directory: String, _ path: String) -> String {
    if path.hasPrefix("/") { return path }
    if directory == "." || directory.isEmpty { return path }
    return path == "." ? directory : directory + "/" + path
  }

  static func directoryName(of path: String) -> String {
    let parts = path.split(separator: "/")
    return parts.count >= 2 ? String(parts[parts.count - 2]) : "."
  }

  /// `path` relative to `base` when it lies under it (both as the user named them), else as is.
  static func relative(_ path: String, to base: String) -> String {
    if base == "." { return path }
    if path == base { return "." }
    if path.hasPrefix(base + "/") { return String(path.dropFirst(base.count + 1)) }
    return path
  }

  static func canonical(_ path: String) -> String { FilePath.canonical(path) }

  static func shown(_ path: String) -> String {
    let here = canonical(".")
    return path.hasPrefix(here + "/") ? String(path.dropFirst(here.count + 1)) : path
  }

  /// The files a pattern with `*`, `?` or `[...]` names, sorted.
  static func glob(_ pattern: String) -> [String] {
    var result = glob_t()
    defer { globfree(&result) }
    guard Glibc.glob(pattern, 0, nil, &result) == 0 else { return [] }
    return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }.sorted()
  }
}
