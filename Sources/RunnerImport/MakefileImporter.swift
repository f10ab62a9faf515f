/// A Makefile → runner's format (see docs/import.md for each construct).
///
/// The Makefile is read as GNU make reads it (`MakefileReader`): variables are expanded as make
/// would, conditionals decided with the Makefile's own values, and each explicit target becomes
/// a task (`MakefileTaskBuilder`): a `.PHONY` target a plain task, a file target an incremental
/// task with `sources` and `outputs`, the recipe lines its commands.
struct MakefileImporter {
  let path: String

  func convert(_ text: String) throws(ImportError) -> (ImportedFile, ImportReport) {
    var reader = MakefileReader(path: path, text: text)
    try reader.read()
    var builder = MakefileTaskBuilder(reader: reader)
    let (file, report) = builder.build()
    guard !file.tasks.isEmpty else {
      throw ImportError(file: path, line: nil, "no targets: nothing to import (make says: No targets)")
    }
    return (file, report)
  }
}
