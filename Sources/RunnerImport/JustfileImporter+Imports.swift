import Glibc

/// just's `import`: the imported file's items join the importing one's, as just merges them.
extension JustfileImporter {
  /// Reads every `import` (recursively) into `justfile`. Where two definitions of a name meet,
  /// the shallower one wins, and of two at one depth the earlier import's (just's stack):
  /// imported items go before the importer's own, later imports before earlier ones, so
  /// "the last wins" (`allow-duplicate-*`) picks what just picks. Each file is read once.
  /// The lines of the Nth file read are numbered from N × `ImportReport.lineBase`.
  func readImports(_ justfile: inout Justfile, _ report: inout ImportReport) throws(ImportError) {
    var seen: Set<String> = []
    try readImports(&justfile, from: Self.directory(of: path), stack: [JustPath.clean(path)], &seen, &report)
  }

  func readImports(
    _ justfile: inout Justfile, from directory: String, stack: [String], _ seen: inout Set<String>,
    _ report: inout ImportReport
  ) throws(ImportError) {
    var before = Justfile()
    for item in justfile.imports.reversed() {
      let file = Self.resolved(item.path, in: directory)
      let key = JustPath.clean(file)
      if stack.contains(key) {
        throw report.located(
          ImportError(file: path, line: item.line, "just refuses the file: import `\(file)` is circular"))
      }
      guard seen.insert(key).inserted else { continue }
      guard let text = Self.readText(file) else {
        guard item.optional else {
          throw report.located(
            ImportError(
              file: path, line: item.line, "just refuses the file: could not find source file for import `\(item.path)`"
            ))
        }
        report.approximate(
          "import? '\(item.path)'", at: item.line,
          "not there now: its recipes are not in the tasks file (just reads them once the file is there): "
            + "import again then")
        continue
      }
      var parser = JustfileParser(text: text)
      var imported = parser.parse()
      report.sources.append(file)
      let base = report.sources.count * ImportReport.lineBase
      if let first = parser.refusals.min(by: { $0.line < $1.line }) {
        throw ImportError(file: file, line: first.line, "just refuses the file: \(first.message)")
      }
      imported.shiftLines(by: base)
      try readImports(&imported, from: Self.directory(of: file), stack: stack + [key], &seen, &report)
      before.append(imported)
    }
    justfile.imports = []
    before.append(justfile)
    justfile = before
  }

  /// An import's path: `~/` is the home directory; a relative one is the importing file's.
  static func resolved(_ written: String, in directory: String) -> String {
    if written.hasPrefix("~/"), let home = getenv("HOME") { return String(cString: home) + written.dropFirst() }
    if written.hasPrefix("/") || directory == "." { return written }
    return directory + "/" + written
  }

  static func directory(of file: String) -> String {
    guard let slash = file.lastIndex(of: "/") else { return "." }
    return slash == file.startIndex ? "/" : String(file[..<slash])
  }
}

extension Justfile {
  /// Adds `other`'s items after this one's.
  mutating func append(_ other: Justfile) {
    settings += other.settings
    assignments += other.assignments
    aliases += other.aliases
    recipes += other.recipes
    modules += other.modules
    imports += other.imports
    unexported += other.unexported
    functions += other.functions
    skipped += other.skipped
  }

  /// Every line number moved by `offset` (a file read into another).
  mutating func shiftLines(by offset: Int) {
    for index in settings.indices { settings[index].line += offset }
    for index in assignments.indices { assignments[index].line += offset }
    for index in aliases.indices {
      aliases[index].line += offset
      for attribute in aliases[index].attributes.indices { aliases[index].attributes[attribute].line += offset }
    }
    for index in recipes.indices {
      recipes[index].line += offset
      for attribute in recipes[index].attributes.indices { recipes[index].attributes[attribute].line += offset }
      for line in recipes[index].body.indices { recipes[index].body[line].line += offset }
    }
    for index in modules.indices { modules[index].line += offset }
    for index in imports.indices { imports[index].line += offset }
    for index in unexported.indices { unexported[index].line += offset }
    for index in functions.indices { functions[index].line += offset }
    for index in skipped.indices { skipped[index].line += offset }
  }
}
