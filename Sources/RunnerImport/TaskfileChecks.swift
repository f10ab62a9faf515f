import RunnerBasics
import RunnerModel

/// What go-task refuses before it runs anything, refused by the import in go-task's words:
/// a schema version before 3, an unknown `method`, and included files that are missing, do
/// not parse, declare `dotenv`, or include back.
extension TaskfileImporter {
  func checkFile(_ entries: [YAMLEntry]) throws(ImportError) {
    if let version = entries.first(where: { $0.name == "version" }), let text = version.value.scalar,
      let major = Int(text.prefix { $0.isNumber }), major < 3
    {
      throw ImportError(
        file: path, line: version.key.location.line,
        "go-task refuses the file: Schema version (\(major).0.0) no longer supported. Please use v3 or above")
    }
    try checkMethods(entries)
    try checkIncludes(of: entries, file: path, stack: [FilePath.canonical(onDisk(path))])
  }

  /// `method:` of the file and of each task: checksum, timestamp or none.
  func checkMethods(_ entries: [YAMLEntry]) throws(ImportError) {
    var methods = entries.filter { $0.name == "method" }
    if let tasks = entries.first(where: { $0.name == "tasks" })?.value, case .mapping(let all) = tasks.kind {
      for task in all {
        guard case .mapping(let fields) = task.value.kind else { continue }
        methods += fields.filter { $0.name == "method" }
      }
    }
    for method in methods {
      guard let name = method.value.scalar, !["checksum", "timestamp", "none"].contains(name) else { continue }
      throw ImportError(
        file: path, line: method.key.location.line, "go-task refuses the file: invalid method \"\(name)\"")
    }
  }

  /// Each included file (and the files it includes) is there unless optional, parses, has no
  /// `dotenv` and includes none of the files including it.
  func checkIncludes(of entries: [YAMLEntry], file: String, stack: [String]) throws(ImportError) {
    guard let includes = entries.first(where: { $0.name == "includes" })?.value, case .mapping(let all) = includes.kind
    else { return }
    let folder = file.contains("/") ? String(file[..<file.lastIndex(of: "/")!]) + "/" : ""
    for include in all {
      var written = include.value.scalar
      var optional = false
      if case .mapping(let fields) = include.value.kind {
        written = fields.first { $0.name == "taskfile" }?.value.scalar
        optional = fields.first { $0.name == "optional" }?.value.scalar == "true"
      }
      guard let written, !written.contains("{{"), !written.contains("://") else { continue }
      let line = include.key.location.line
      let source = includedPath(written).source
      var target = source.hasPrefix("/") ? source : folder + source
      let lowered = written.lowercased()
      if !lowered.hasSuffix(".yml"), !lowered.hasSuffix(".yaml") {
        // A directory: the first of go-task's names for a Taskfile there.
        let place = String(target.dropLast("Taskfile.yml".count))
        let names = ["Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml", "Taskfile.dist.yml"]
        target = names.map { place + $0 }.first { JustfileImporter.readText(onDisk($0)) != nil } ?? target
      }
      guard let text = JustfileImporter.readText(onDisk(target)) else {
        if optional { continue }
        throw ImportError(file: file, line: line, "go-task refuses the file: No Taskfile found at \"\(target)\"")
      }
      let canonical = FilePath.canonical(onDisk(target))
      if let first = stack.firstIndex(of: canonical) {
        throw ImportError(
          file: file, line: line,
          "go-task refuses the file: include cycle detected between \(stack[first]) <--> \(stack.last ?? canonical)")
      }
      let root: YAMLNode?
      do {
        root = try YAMLParser(file: target).parse(Array(text.utf8))
      } catch {
        throw ImportError(file: file, line: line, "go-task refuses the file: Failed to parse \(target): \(error)")
      }
      guard let root, case .mapping(let fields) = root.kind else { continue }
      if fields.contains(where: { $0.name == "dotenv" }) {
        throw ImportError(
          file: file, line: line,
          "go-task refuses the file: Included Taskfiles can't have dotenv declarations. Please, move the dotenv "
            + "declaration to the main Taskfile")
      }
      try checkIncludes(of: fields, file: target, stack: stack + [canonical])
    }
  }
}
