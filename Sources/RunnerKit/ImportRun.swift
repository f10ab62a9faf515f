import Glibc
import RunnerBasics
import RunnerCache
import RunnerImport
import RunnerModel

/// `runner import FILE [-o OUT] [--force] [--format F]`: writes runner's task file for a
/// Taskfile, justfile or Makefile and reports on stderr what was not carried over exactly.
///
/// Exit codes: 0 the import is exact; 3 it wrote the file and the report has entries; 2 the
/// file cannot be read or imported, or OUT exists without `--force`.
public struct ImportRun: Sendable {
  /// The import wrote the file but the report lists constructs not carried over exactly.
  public static let reported: Int32 = 3

  public var file: String
  /// nil: `tasks.yml` beside FILE; `-`: stdout.
  public var output: String?
  public var force: Bool
  public var format: String?

  public init(file: String, output: String?, force: Bool, format: String?) {
    self.file = file
    self.output = output
    self.force = force
    self.format = format
  }

  public func run() -> Int32 {
    let bytes: [UInt8]
    do { bytes = try FileReader.read(file, streams: true) } catch { return fail("\(error)") }
    let text = String(decoding: bytes, as: UTF8.self)
    let chosen: ImportFormat?
    if let format {
      guard let named = ImportFormat(rawValue: format.lowercased()) else {
        return fail("unknown format '\(format)': use taskfile, justfile or makefile")
      }
      chosen = named
    } else {
      chosen = ImportFormat.detect(path: file, text: text)
    }
    guard let chosen else {
      return fail("cannot tell what '\(file)' is: name it Taskfile.yml, justfile or Makefile, or give --format")
    }
    let converted: (ImportedFile, ImportReport)
    do {
      converted = try Importer.convert(path: file, text: text, format: chosen)
    } catch {
      return fail("\(error)")
    }
    let (imported, report) = converted
    var yaml = TasksFileWriter().write(imported)
    if let schema = StarterFile.schemaPath() { yaml = "# yaml-language-server: $schema=\(schema)\n" + yaml }
    let target = output ?? (file.contains("/") ? TaskFileLocator.parent(of: file) + "/tasks.yml" : "tasks.yml")
    let includes = imported.includes.filter { !$0.optional }.map(\.path)
    let optional = imported.includes.filter(\.optional).map { ($0.namespace, $0.path) }
    if let problems = Self.loadProblems(
      yaml, includes: includes, optional: optional, at: target == "-" ? file : target)
    {
      return fail(
        "the import of '\(file)' would not load, so nothing was written:\n\(problems)")
    }
    if target == "-" {
      Terminal.write(yaml, to: 1)
    } else {
      // lstat: a dangling symlink is there too, and would be replaced.
      var info = stat()
      if !force, lstat(target, &info) == 0 { return fail("'\(target)' exists: give --force to overwrite it") }
      if let problem = write(yaml, to: target) { return fail("cannot write '\(target)': \(problem)") }
    }
    Terminal.write(report.render(), to: 2)
    let where_ = target == "-" ? "stdout" : "'\(target)'"
    let tasks = "\(imported.tasks.count) task\(imported.tasks.count == 1 ? "" : "s")"
    if report.isEmpty {
      Terminal.write("imported \(file) (\(chosen.rawValue)) into \(where_): \(tasks), every construct exact\n", to: 2)
      return ExitStatus.success
    }
    let count = report.entries.count
    Terminal.write(
      "imported \(file) (\(chosen.rawValue)) into \(where_): \(tasks); \(count) construct\(count == 1 ? "" : "s")"
        + " not carried over exactly (above)\n", to: 2)
    return Self.reported
  }

  /// What runner's own loader says of the written text at `path`, nil when it loads. Nothing
  /// runs (a param's `default: { sh: }` is taken as empty); an include not imported yet leaves
  /// the check at the file's own schema.
  /// - Parameter optional: optional includes (namespace, path): one not written yet leaves
  ///   the names in its namespace undefined, which is no problem of this file.
  package static func loadProblems(
    _ yaml: String, includes: [String], optional: [(String, String)] = [], at path: String
  ) -> String? {
    var loader = TaskFileLoader()
    loader.commandOutput = { _, _ in (0, "") }
    loader.matchFiles = { _, _ in [] }
    let directory = path.contains("/") ? TaskFileLocator.parent(of: path) : "."
    func exists(_ include: String) -> Bool {
      var info = stat()
      return stat(FilePath.resolve(include, in: directory), &info) == 0
    }
    let whole = includes.allSatisfy(exists)
    let absent = optional.filter { !exists($0.1) }.map(\.0)
    do {
      _ = try loader.decode(bytes: Array(yaml.utf8), path: path)
    } catch {
      return error.description
    }
    guard whole else { return nil }
    do {
      _ = try loader.load(bytes: Array(yaml.utf8), path: path)
      return nil
    } catch {
      // What an included task file already there says of itself is not this import's to judge
      // (a `.env` file the written one reads is: the tools refuse a malformed one too).
      let own = error.diagnostics.filter { diagnostic in
        if absent.contains(where: { diagnostic.message.contains("'\($0):") }) { return false }
        // `:NAME` is the root file's task: the file is meant to be included by one that has it.
        if diagnostic.message.contains(" ':"), diagnostic.message.contains("which is not defined") { return false }
        guard let file = diagnostic.location?.file, file != path else { return true }
        return !(file.hasSuffix(".yml") || file.hasSuffix(".yaml"))
      }
      return own.isEmpty ? nil : DiagnosticList(own).description
    }
  }

  /// A regular file (or a new one) is replaced atomically; anything else that exists (a
  /// device such as `/dev/stdout`, a pipe) is written in place, never replaced by a rename.
  func write(_ text: String, to target: String) -> String? {
    var info = stat()
    if stat(target, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
      let descriptor = open(target, O_WRONLY | O_TRUNC | O_CLOEXEC)
      guard descriptor >= 0 else { return String(cString: strerror(errno)) }
      defer { close(descriptor) }
      var bytes = Array(text.utf8)[...]
      while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 {
          if errno == EINTR { continue }
          return String(cString: strerror(errno))
        }
        bytes = bytes.dropFirst(written)
      }
      return nil
    }
    do {
      try CacheFileSystem.writeAtomically(target, Array(text.utf8))
      return nil
    } catch {
      return "\(error)"
    }
  }

  func fail(_ text: String) -> Int32 {
    DiagnosticPrinter().print([Diagnostic(.error, text)])
    return ExitStatus.usage
  }
}
