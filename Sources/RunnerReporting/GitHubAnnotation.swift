import Glibc
import RunnerBasics
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
  /// - Parameters:
  ///   - workspace: `$GITHUB_WORKSPACE`: paths under it are made relative to it, as GitHub
  ///     matches annotations to repository paths (`cd examples && runner demo.yml` names
  ///     `examples/demo.yml`).
  ///   - directory: what a relative path is relative to (runner's working directory).
  package func command(workspace: String? = nil, directory: String? = nil) -> String {
    var properties: [(String, String)] = []
    if let location {
      var file = location.file
      if let workspace, !workspace.isEmpty {
        file = Self.relative(file, to: workspace, from: directory ?? Self.currentDirectory())
      }
      if file.hasPrefix("./") { file.removeFirst(2) }
      properties += [("file", file), ("line", String(location.line)), ("col", String(location.column))]
    }
    if let title { properties.append(("title", title)) }
    let list = properties.map { "\($0.0)=\(Self.escapeProperty($0.1))" }.joined(separator: ",")
    return "::\(level.rawValue)\(list.isEmpty ? "" : " " + list)::\(Self.escapeData(message))\n"
  }

  /// `path` relative to `workspace` when it lies under it (both resolved, symlinks included),
  /// else as it is.
  static func relative(_ path: String, to workspace: String, from directory: String) -> String {
    let absolute = FilePath.resolve(path, in: directory)
    let workspace = workspace.count > 1 && workspace.hasSuffix("/") ? String(workspace.dropLast()) : workspace
    let slash = absolute.lastIndex(of: "/")!
    let parent = slash == absolute.startIndex ? "/" : String(absolute[..<slash])
    let name = absolute[absolute.index(after: slash)...]
    // Resolved when both exist (`..`, `.` and symlinks gone), else as written.
    let root = FilePath.canonical(workspace)
    let folder = FilePath.canonical(parent)
    let full = (folder == "/" ? "" : folder) + "/" + name
    guard full.hasPrefix(root == "/" ? "/" : root + "/") else { return path }
    return String(full.dropFirst(root == "/" ? 1 : root.count + 1))
  }

  static func currentDirectory() -> String {
    guard let cwd = getcwd(nil, 0) else { return "." }
    defer { free(cwd) }
    return String(cString: cwd)
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
