import Testing

@testable import RunnerModel

/// Loads YAML text as a task file named `tasks.yml`.
func loadGraph(_ text: String) throws -> TaskGraph {
  try TaskFileLoader().load(bytes: Array(text.utf8), path: "tasks.yml")
}

/// The diagnostics loading `text` produces (empty if it loads).
func loadErrors(_ text: String, budget: Int? = nil) -> [Diagnostic] {
  var loader = TaskFileLoader()
  if let budget { loader.aliasBudget = budget }
  do {
    _ = try loader.load(bytes: Array(text.utf8), path: "tasks.yml")
    return []
  } catch {
    return error.diagnostics
  }
}

/// The one diagnostic loading `text` must produce, as printed.
func loadError(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> String {
  let errors = loadErrors(text)
  #expect(errors.count == 1, "expected one error, got \(errors)", sourceLocation: sourceLocation)
  return errors.first?.description ?? ""
}
