import RunnerModel

/// Values runner fills in when it loads the file: `env`, `with:`, paths.
extension TaskfileImporter {
  /// An env value: `{{.NAME}}` → `${NAME}` (runner's env values read variables so), or the
  /// value of a var spliced where used.
  func convertValue(_ text: String, line: Int, _ context: Context, _ report: inout ImportReport, depth: Int = 0)
    -> String
  {
    convertTemplates(text, line: line, shell: false, &report) { name, _, report in
      if let value = context.inlineVars[name], depth < 16 {
        return .text(convertValue(value, line: line, context, &report, depth: depth + 1))
      }
      if name.hasPrefix("runner.") { return .text(Self.hostValue(name, line: line, &report)) }
      if name == "ROOT_DIR" { return .text("${{ runner.root }}") }
      if context.commandVars[name] != nil || ["CLI_ARGS", "TASKFILE_DIR"].contains(name) {
        report.notCarried("{{.\(name)}}", at: line, "has no value outside a command in runner")
        return nil
      }
      return .expansion("${\(name)}")
    }
  }

  /// A `with:` value: `{{.NAME}}` → `${{ params.NAME }}`.
  func convertWithValue(_ text: String, line: Int, _ context: Context, _ report: inout ImportReport) -> String {
    convertLoadTime(text, line: line, context, &report)
  }

  /// A path or glob (`dir`, `sources`, `generates`): `{{.NAME}}` → `${{ params.NAME }}`.
  func convertPath(_ text: String, line: Int, _ context: Context, _ report: inout ImportReport) -> String {
    convertLoadTime(text, line: line, context, &report)
  }

  /// Text runner fills in when it loads the file: params as `${{ params.NAME }}`, spliced
  /// values as written; a command-valued var has no value then.
  func convertLoadTime(_ text: String, line: Int, _ context: Context, _ report: inout ImportReport, depth: Int = 0)
    -> String
  {
    convertTemplates(text, line: line, shell: false, &report) { name, _, report in
      if let text = context.loopItem?.text(for: name) ?? structuredText(name, context) { return .text(text) }
      if name == context.callItemName, context.inCallLoop { return .text("${{ item }}") }
      if let value = context.inlineVars[name], depth < 16 {
        return .text(convertLoadTime(value, line: line, context, &report, depth: depth + 1))
      }
      if name.hasPrefix("runner.") { return .text(Self.hostValue(name, line: line, &report)) }
      if name == "ROOT_DIR" { return .text("${{ runner.root }}") }
      if name == "TASKFILE_DIR" { return .text(".") }
      if Self.specialVariables.contains(name)
        || ["USER_WORKING_DIR", "TASK", "TASK_DIR", "CLI_ARGS", "TASKFILE", "ROOT_TASKFILE", "ALIAS"].contains(name)
      {
        report.notCarried(
          "{{.\(name)}}", at: line, "go-task's own variable has no value when runner loads the file: write the path")
        return nil
      }
      if context.commandVars[name] != nil {
        report.notCarried("{{.\(name)}}", at: line, "a command's output has no value when runner loads the file")
        return nil
      }
      return .expansion("${{ params.\(name) }}")
    }
  }
}
