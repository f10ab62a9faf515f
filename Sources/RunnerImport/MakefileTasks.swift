/// Turns what `MakefileReader` read into runner's tasks.
struct MakefileTaskBuilder {
  /// What a target is to runner.
  enum Kind: Sendable {
    /// `.PHONY`: a task that always runs.
    case phony
    /// Not phony and its recipe makes the file: `outputs`, and `sources` from its prerequisites.
    case file
    /// Not phony, no recipe: a group of its deps.
    case group
    /// Not phony, but its recipe does not make the file: a task that always runs.
    case action
  }

  var reader: MakefileReader
  var targets: [MakeTarget] = []
  /// Target path → index in `targets`.
  var position: [String: Int] = [:]
  /// Target path → task name.
  var names: [String: String] = [:]
  var kinds: [String: Kind] = [:]
  var recipes: [String: MakeConvertedRecipe] = [:]
  var converter: MakeRecipeConverter
  var params: [ImportedParam] = []

  init(reader: MakefileReader) {
    self.reader = reader
    converter = MakeRecipeConverter(
      expander: reader.expander, taskNames: [:], settings: reader.settings, ignoredTargets: reader.ignoredTargets,
      shellName: "sh")
  }

  /// Borrowed in place: a `set` would copy the expander, and its growing report, at every
  /// change (quadratic: 20 000 targets took 23 s).
  var expander: MakeExpander {
    get { converter.expander }
    _modify { yield &converter.expander }
  }

  /// The task file and the report.
  mutating func build() -> (ImportedFile, ImportReport) {
    mergeRules()
    nameTasks()
    converter.taskNames = names
    converter.shellName = shellSetting().name ?? "sh"
    markStableDefinitions()
    probeRecipes()
    classify()
    chooseParams()
    var file = ImportedFile()
    for target in targets { file.tasks.append(task(for: target)) }
    dropCircularDependencies(&file.tasks)
    reportRules()
    file.params = params
    fileSettings(&file)
    return (file, expander.report)
  }

  // MARK: Targets

  /// Each target with its rules merged (the rule with the recipe gives the first prerequisites,
  /// as in make), static pattern rules expanded per target.
  mutating func mergeRules() {
    for rule in reader.rules {
      switch rule.kind {
      case .explicit:
        for path in rule.targets {
          add(path, rule: rule, prerequisites: rule.prerequisites, orderOnly: rule.orderOnly, stem: nil)
        }
      case .staticPattern(let pattern, let prerequisites):
        for path in rule.targets {
          guard let stem = MakeWords.stem(of: path, matching: pattern) else {
            expander.notCarried(
              path, at: rule.line, "does not match the rule's target pattern '\(pattern)' (make stops here): left out")
            continue
          }
          let expanded = prerequisites.map { MakeWords.replacingPercent($0, with: stem) }
          let orderOnly = rule.orderOnly.map { MakeWords.replacingPercent($0, with: stem) }
          add(path, rule: rule, prerequisites: expanded, orderOnly: orderOnly, stem: stem)
        }
      case .special, .ignored: continue
      }
    }
  }

  /// Adds one rule's part to target `path`.
  mutating func add(_ path: String, rule: MakeRule, prerequisites: [String], orderOnly: [String], stem: String?) {
    let index: Int
    if let known = position[path] {
      index = known
    } else {
      index = targets.count
      position[path] = index
      targets.append(MakeTarget(path: path, line: rule.line))
    }
    var target = targets[index]
    if rule.recipe.isEmpty {
      target.prerequisites += prerequisites
    } else {
      target.recipe = rule.recipe
      target.recipeRuleLine = rule.line
      target.prerequisites = prerequisites + target.prerequisites
      if let stem { target.stem = stem }
    }
    target.orderOnly += orderOnly
    if target.description == nil { target.description = rule.description }
    targets[index] = target
  }

  /// A task name for each target: the path, made a valid name where it is not one (without
  /// taking the name of another target).
  mutating func nameTasks() {
    var used = Set(targets.map(\.path).filter { Self.sanitized($0) == $0 })
    for target in targets {
      var name = Self.sanitized(target.path)
      if name != target.path, used.contains(name) {
        var number = 2
        while used.contains("\(name)-\(number)") { number += 1 }
        name = "\(name)-\(number)"
      }
      used.insert(name)
      names[target.path] = name
      if name != target.path {
        expander.approximate(
          target.path, at: target.line,
          "not a task name (runner's names are letters, digits, '_', '-', '.' and ':'): the task is '\(name)'")
      }
    }
  }

  /// `path` as a task name: `/` → `-`, other characters runner does not allow → `_`.
  static func sanitized(_ path: String) -> String {
    var name = ""
    for character in path {
      if character == "/" {
        name += "-"
      } else if character.isLetter || character.isNumber || "_-.:".contains(character) {
        name.append(character)
      } else {
        name += "_"
      }
    }
    while name.hasPrefix("-") { name.removeFirst() }
    if name.isEmpty { name = "target" }
    return String(name.prefix(200))
  }

  /// The automatic variables of `target`'s recipe.
  func automatic(_ target: MakeTarget) -> MakeAutomatic {
    var stem = target.stem ?? ""
    if target.stem == nil {
      let suffix = reader.suffixes.filter { target.path.hasSuffix($0) && target.path.count > $0.count }
        .max { $0.count < $1.count }
      stem = suffix.map { String(target.path.dropLast($0.count)) } ?? ""
    }
    return MakeAutomatic(
      target: target.path, prerequisites: target.prerequisites, orderOnly: target.orderOnly, stem: stem)
  }

  /// Marks the simple variables whose definition, expanded with the final values, gives their
  /// value: recipes expand the definition, so the params it reads stay `${NAME}`.
  mutating func markStableDefinitions() {
    for (name, variable) in expander.variables where variable.flavor == .simple {
      guard let definition = variable.definition else { continue }
      var probe = expander
      probe.quiet = true
      probe.met = MakeExpander.Met()
      let again = probe.expand(definition, line: variable.line, mode: .definition)
      guard !probe.met.shell else { continue }
      let stored = probe.expand(variable.value, line: variable.line, mode: .definition)
      if again == stored { expander.variables[name]?.stable = true }
    }
  }

  /// Expands every recipe once, quietly, to learn what each names and which variables it reads.
  mutating func probeRecipes() {
    let saved = expander
    expander.quiet = true
    for target in targets where !target.recipe.isEmpty {
      expander.targetVariables = reader.targetVariables[target.path] ?? [:]
      recipes[target.path] = converter.convert(target, automatic: automatic(target), callable: false)
    }
    let referenced = expander.recipeReferenced
    let touched = expander.importTouched
    expander = saved
    expander.recipeReferenced = referenced
    expander.importTouched = touched
    converter.firstCompound = nil
  }

  /// Drops each dependency that closes a cycle, as make does ("Circular a <- b dependency
  /// dropped"), visiting the targets depth first in the Makefile's order.
  mutating func dropCircularDependencies(_ tasks: inout [ImportedTask]) {
    var index: [String: Int] = [:]
    for (position, task) in tasks.enumerated() { index[task.name] = position }
    var state: [String: Bool] = [:]  // false: on the stack; true: done
    var stack: [(task: Int, next: Int)] = []
    for start in tasks.indices where state[tasks[start].name] == nil {
      state[tasks[start].name] = false
      stack = [(start, 0)]
      while let (current, next) = stack.last {
        guard next < tasks[current].dependencies.count else {
          state[tasks[current].name] = true
          stack.removeLast()
          continue
        }
        stack[stack.count - 1].next += 1
        let name = tasks[current].dependencies[next].name
        guard let target = index[name] else { continue }
        switch state[name] {
        case nil:
          state[name] = false
          stack.append((target, 0))
        case false?:
          tasks[current].dependencies.remove(at: next)
          stack[stack.count - 1].next -= 1
          let path = targets.first { names[$0.path] == tasks[current].name }
          expander.approximate(
            path?.path ?? tasks[current].name, at: path?.line ?? 0,
            "depends on '\(name)', which depends on it in turn: that dependency is dropped, as make drops it")
        default: break
        }
      }
    }
  }

  /// What each target is: phony, a file its recipe makes, a group, or an action.
  mutating func classify() {
    let phony = Set(reader.phony)
    for target in targets {
      if phony.contains(target.path) {
        kinds[target.path] = .phony
      } else if target.recipe.isEmpty {
        kinds[target.path] = .group
      } else {
        kinds[target.path] = recipes[target.path]?.writesTarget == true ? .file : .action
      }
    }
  }
}
