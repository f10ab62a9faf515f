/// Everything that can be wrong with a task file or with what the user asked of it.
///
/// The text names the thing and, through the `Diagnostic` that carries it, the place.
package enum TaskFileError: Error, Sendable, Equatable, CustomStringConvertible {
  case fileNotFound(String)
  case isDirectory(String)
  case unreadable(String, reason: String)
  case unwritable(String, reason: String)
  case syntax(problem: String, context: String?)
  case multipleDocuments
  case emptyFile
  case notUTF8(byte: UInt8)
  case noTasks
  case duplicateKey(String, first: SourceLocation)
  case nonScalarKey
  case recursiveAlias(String)
  case undefinedAlias(String)
  case aliasBudgetExceeded(Int)
  case tooDeep(limit: Int)
  case badMerge
  case unknownKey(String, in: String, suggestion: String?)
  case foreignKey(String, in: String, equivalent: String)
  case noDefaultTask
  case wrongType(what: String, expected: String, found: String)
  case invalidValue(what: String, reason: String)
  case bareListTask(String)
  case runAndImage(String)
  case invalidTaskName(String, reason: String)
  case undefinedDependency(task: String, dependency: String, suggestion: String?)
  case duplicateDependency(task: String, dependency: String)
  case cycle([String])
  case expressionOutsideEnv(task: String, key: String)
  case malformedExpression(String, reason: String)
  case expressionNotADependency(task: String, reference: String)
  case unknownTarget(String, suggestion: String?)

  package var description: String {
    switch self {
    case .fileNotFound(let path): return "task file '\(path)' not found"
    case .isDirectory(let path): return "'\(path)' is a directory, not a task file"
    case .unreadable(let path, let reason): return "cannot read '\(path)': \(reason)"
    case .unwritable(let path, let reason): return "cannot write '\(path)': \(reason)"
    case .syntax(let problem, let context):
      return context.map { "invalid YAML: \(problem) \($0)" } ?? "invalid YAML: \(problem)"
    case .multipleDocuments: return "a task file holds one YAML document; found a second '---'"
    case .emptyFile: return "the task file is empty"
    case .notUTF8(let byte):
      let hex = String(byte, radix: 16, uppercase: true)
      return "the task file is not valid UTF-8 (byte 0x\(hex.count < 2 ? "0" : "")\(hex) here)"
    case .noTasks: return "the task file defines no tasks (add a 'tasks:' mapping)"
    case .duplicateKey(let key, let first): return "duplicate key '\(key)' (first defined at \(first))"
    case .nonScalarKey: return "mapping keys must be plain strings"
    case .recursiveAlias(let name): return "alias '*\(name)' refers to its own anchor (recursive alias)"
    case .undefinedAlias(let name): return "alias '*\(name)' refers to an anchor that is not defined"
    case .tooDeep(let limit):
      return "collections nest deeper than \(limit) levels"
    case .aliasBudgetExceeded(let limit):
      return "aliases expand the file by more than \(limit) YAML nodes (the limit: one per byte of the file, "
        + "at least 1000000) — an alias bomb? Expand fewer or smaller aliases"
    case .badMerge: return "a merge key '<<' takes a mapping or a list of mappings"
    case .unknownKey(let key, let place, let suggestion):
      return "unknown key '\(key)' in \(place)" + Self.hint(suggestion)
    case .foreignKey(let key, let place, let equivalent):
      return "unknown key '\(key)' in \(place): runner's equivalent is \(equivalent)"
    case .noDefaultTask: return "no default task: name one (or add 'default:')"
    case .wrongType(let what, let expected, let found): return "\(what) must be \(expected), found \(found)"
    case .invalidValue(let what, let reason): return "\(what) \(reason)"
    case .bareListTask(let name):
      return
        "task '\(name)' is a list; write 'run: [...]' for commands or 'deps: [...]' for dependencies"
    case .runAndImage(let name): return "task '\(name)' has both 'run' and 'image'; a task has one operation"
    case .invalidTaskName(let name, let reason): return "invalid task name '\(name)': \(reason)"
    case .undefinedDependency(let task, let dependency, let suggestion):
      return "task '\(task)' depends on '\(dependency)', which is not defined" + Self.hint(suggestion)
    case .duplicateDependency(let task, let dependency):
      return "task '\(task)' lists dependency '\(dependency)' twice"
    case .cycle(let path): return "dependency cycle: " + path.joined(separator: " -> ")
    case .expressionOutsideEnv(let task, let key):
      return "'${{ }}' expressions may appear only in 'env' values; found in '\(key)' of task '\(task)'"
    case .malformedExpression(let text, let reason): return "malformed expression '\(text)': \(reason)"
    case .expressionNotADependency(let task, let reference):
      return "task '\(task)' reads outputs of '\(reference)', which is not one of its direct dependencies"
        + " (add it to 'deps')"
    case .unknownTarget(let name, let suggestion):
      return "no task named '\(name)'" + Self.hint(suggestion)
    }
  }

  static func hint(_ suggestion: String?) -> String {
    suggestion.map { " (did you mean '\($0)'?)" } ?? ""
  }
}
