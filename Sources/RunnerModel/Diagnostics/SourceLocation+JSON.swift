import RunnerBasics

extension SourceLocation {
  package var json: JSONValue {
    .object([("file", .string(file)), ("line", .int(line)), ("column", .int(column))])
  }
}
