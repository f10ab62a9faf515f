/// Why the file a task wrote to `$RUNNER_OUTPUT` could not be read; lines count from 1.
package enum OutputFileError: Error, Equatable, CustomStringConvertible {
  case malformedLine(line: Int)
  case invalidKey(String, line: Int)
  case emptyDelimiter(line: Int)
  case unterminatedValue(key: String, delimiter: String, line: Int)
  case valueTooLarge(key: String, line: Int)

  package var line: Int {
    switch self {
    case .malformedLine(let line), .invalidKey(_, let line), .emptyDelimiter(let line),
      .unterminatedValue(_, _, let line), .valueTooLarge(_, let line):
      return line
    }
  }

  package var description: String {
    switch self {
    case .malformedLine(let line):
      return "line \(line): expected 'key=value' or 'key<<DELIMITER'"
    case .invalidKey(let key, let line):
      return "line \(line): invalid output name '\(key)' (use letters, digits, '_', '-' and '.')"
    case .emptyDelimiter(let line):
      return "line \(line): missing delimiter after '<<'"
    case .unterminatedValue(let key, let delimiter, let line):
      return "line \(line): value of '\(key)' is never closed by a line '\(delimiter)'"
    case .valueTooLarge(let key, let line):
      return "line \(line): value of '\(key)' is larger than \(OutputFileParser.valueLimit >> 20) MiB"
    }
  }
}
