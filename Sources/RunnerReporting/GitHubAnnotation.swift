import RunnerModel

/// A GitHub Actions workflow command that annotates a file: `::error file=…,line=…::message`.
///
/// GitHub shows annotations on the run's page and on the lines of the pull request.
package struct GitHubAnnotation: Sendable, Equatable {
  package enum Level: String, Sendable {
    case error
    case warning
    case notice
  }

  package var level: Level
  package var message: String
  package var title: String?
  package var location: SourceLocation?

  package init(_ level: Level, _ message: String, title: String? = nil, at location: SourceLocation? = nil) {
    self.level = level
    self.message = message
    self.title = title
    self.location = location
  }

  /// A task-file diagnostic; its notes join the message.
  package init(_ diagnostic: Diagnostic) {
    let level: Level = diagnostic.severity == .error ? .error : diagnostic.severity == .warning ? .warning : .notice
    let message = ([diagnostic.message] + diagnostic.notes.map(\.headline)).joined(separator: "\n")
    self.init(level, message, title: "task file \(diagnostic.severity.rawValue)", at: diagnostic.location)
  }

  /// The command line, newline included.
  ///
  /// - Parameter workspace: `$GITHUB_WORKSPACE`: absolute paths under it are made relative,
  ///   as GitHub matches annotations to repository paths.
  package func command(workspace: String? = nil) -> String {
    var properties: [(String, String)] = []
    if let location {
      var file = location.file
      if let workspace, !workspace.isEmpty, file.hasPrefix(workspace + "/") {
        file.removeFirst(workspace.count + 1)
      }
      if file.hasPrefix("./") { file.removeFirst(2) }
      properties += [("file", file), ("line", String(location.line)), ("col", String(location.column))]
    }
    if let title { properties.append(("title", title)) }
    let list = properties.map { "\($0.0)=\(Self.escapeProperty($0.1))" }.joined(separator: ",")
    return "::\(level.rawValue)\(list.isEmpty ? "" : " " + list)::\(Self.escapeData(message))\n"
  }

  /// GitHub's escaping of a command's message: `%`, CR and LF.
  package static func escapeData(_ text: String) -> String {
    var out = ""
    for character in text.unicodeScalars {
      switch character {
      case "%": out += "%25"
      case "\r": out += "%0D"
      case "\n": out += "%0A"
      default: out.unicodeScalars.append(character)
      }
    }
    return out
  }

  /// GitHub's escaping of a property value: the message's, plus `:` and `,`.
  package static func escapeProperty(_ text: String) -> String {
    escapeData(text).replacing(":", with: "%3A").replacing(",", with: "%2C")
  }
}
