/// The formats `runner import` reads.
package enum ImportFormat: String, Sendable, CaseIterable {
  case taskfile, justfile, makefile

  /// The format a file's name says (`Taskfile.yml`, `justfile`, `Makefile`, `*.mk`, …), else
  /// the one its text looks like; nil when neither tells.
  package static func detect(path: String, text: String) -> ImportFormat? {
    let name = String(path.split(separator: "/").last ?? "").lowercased()
    if name.hasPrefix("taskfile") && (name.hasSuffix(".yml") || name.hasSuffix(".yaml")) { return .taskfile }
    if name == "justfile" || name == ".justfile" || name.hasSuffix(".just") { return .justfile }
    if name == "makefile" || name == "gnumakefile" || name.hasSuffix(".mk") || name.hasSuffix(".make") {
      return .makefile
    }
    if name.hasSuffix(".yml") || name.hasSuffix(".yaml") { return text.contains("tasks:") ? .taskfile : nil }
    let lines = text.split(separator: "\n")
    if lines.contains(where: { $0.hasPrefix("\t") }) { return .makefile }
    if lines.contains(where: { $0.hasPrefix("set ") || $0.hasPrefix("    ") }) { return .justfile }
    return nil
  }
}

/// A file that cannot be read as its format: exit 2, at its line.
package struct ImportError: Error, Sendable, CustomStringConvertible {
  package var file: String
  package var line: Int?
  package var message: String

  package init(file: String, line: Int?, _ message: String) {
    self.file = file
    self.line = line
    self.message = message
  }

  package var description: String { "\(file)\(line.map { ":\($0)" } ?? ""): \(message)" }
}

/// Converts a Taskfile, justfile or Makefile into runner's task file and a report.
package enum Importer {
  /// - Parameters:
  ///   - path: the file's path as given (in the report and errors).
  ///   - text: its content.
  ///   - directory: where `path` and the files it names (a Taskfile's includes) are read from;
  ///     empty: the current directory.
  package static func convert(path: String, text: String, format: ImportFormat, directory: String = "")
    throws(ImportError) -> (ImportedFile, ImportReport)
  {
    switch format {
    case .taskfile: return try TaskfileImporter(path: path, directory: directory).convert(text)
    case .justfile: return try JustfileImporter(path: path).convert(text)
    case .makefile: return try MakefileImporter(path: path).convert(text)
    }
  }
}
