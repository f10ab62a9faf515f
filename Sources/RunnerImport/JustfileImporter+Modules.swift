import Glibc

extension JustfileImporter {
  /// `mod NAME` → `includes: { NAME: … }`: the module's justfile is imported on its own (the
  /// report says how, as for a go-task include) into a tasks file beside it, whose tasks then
  /// run in its directory, as just runs a module's recipes; `NAME::RECIPE` is `NAME:RECIPE`.
  ///
  /// A module whose file is not there now is included where `NAME.just` would be imported (just
  /// refuses the justfile until the file is there, runner the tasks file; `mod?` neither).
  ///
  /// - Throws: just's refusal when more than one file could be the module's.
  func includeModules(_ modules: [JustModule], into conversion: inout JustfileConversion) throws(ImportError) {
    let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
    var absent: Set<String> = []
    for module in modules {
      let candidates = Self.moduleFiles(module, in: directory)
      if candidates.count > 1 {
        throw ImportError(
          file: path, line: module.line,
          "just refuses the file: found multiple source files for module `\(module.name)`: "
            + candidates.joined(separator: " and "))
      }
      let found = candidates.first
      let source = found ?? module.path ?? module.name + ".just"
      let target = Self.tasksFile(for: source)
      // A `mod?` whose file is not there gives way to another `mod` of the name, as in just.
      if let earlier = conversion.file.includes.firstIndex(where: { $0.namespace == module.name }) {
        if found == nil, module.optional { continue }
        guard conversion.file.includes[earlier].optional, absent.contains(module.name) else {
          throw ImportError(
            file: path, line: module.line, "just refuses the file: module `\(module.name)` is defined twice")
        }
        // The absent file's include goes, and the aliases of the module included with it.
        let absentPath = conversion.file.includes[earlier].path
        let aliases = Set(conversion.justfile.aliases.filter { $0.target == module.name }.map(\.name))
        conversion.file.includes.removeAll { include in
          include.path == absentPath && (include.namespace == module.name || aliases.contains(include.namespace))
        }
      }
      if found == nil { absent.insert(module.name) } else { absent.remove(module.name) }
      conversion.file.includes.append(ImportedInclude(namespace: module.name, path: target, optional: module.optional))
      // `alias NAME := MODULE`: the module again under the alias's name.
      for alias in conversion.justfile.aliases where alias.target == module.name {
        conversion.file.includes.append(ImportedInclude(namespace: alias.name, path: target, optional: module.optional))
      }
      conversion.report.approximate(
        module.source, at: module.line,
        "import the included file too: runner import \(source) -o \(target) (its recipes are "
          + "\(module.name):RECIPE in runner, just's \(module.name)::RECIPE)"
          + (found == nil && !module.optional ? "; its file is not there now" : ""))
    }
  }

  /// The module's justfile, from the importing file's directory, where just looks for it:
  /// `NAME.just`, `NAME/mod.just`, `NAME/justfile` (any case, or `.justfile`); a path written
  /// in the `mod` line, or the directory it names.
  static func moduleFiles(_ module: JustModule, in directory: String) -> [String] {
    let base = module.path ?? module.name
    var candidates: [String] = []
    if module.path == nil { candidates.append(base + ".just") }
    if module.path != nil, !isDirectory(join(directory, base)) {
      candidates.append(base)
    } else {
      candidates.append(base + "/mod.just")
      let names = listing(join(directory, base))
      candidates += names.filter { $0.lowercased() == "justfile" || $0.lowercased() == ".justfile" }.sorted()
        .map { base + "/" + $0 }
    }
    return candidates.filter { isFile(join(directory, $0)) }
  }

  /// Where the module's import is written: `tasks.yml` beside a justfile, `NAME.tasks.yml`
  /// beside `NAME.just`.
  static func tasksFile(for source: String) -> String {
    let slash = source.lastIndex(of: "/")
    let folder = slash.map { String(source[...$0]) } ?? ""
    let name = slash.map { String(source[source.index(after: $0)...]) } ?? source
    if name.lowercased() == "justfile" || name.lowercased() == ".justfile" { return folder + "tasks.yml" }
    let stem = name.hasSuffix(".just") ? String(name.dropLast(".just".count)) : name
    return folder + stem + ".tasks.yml"
  }

  private static func join(_ directory: String, _ path: String) -> String {
    path.hasPrefix("/") || directory == "." ? path : directory + "/" + path
  }

  static func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
  }

  private static func isFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
  }

  private static func listing(_ path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafePointer(to: entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }
}

extension JustfileImporter {
  /// just refuses to choose between two justfiles of one directory (`justfile` and `.justfile`,
  /// in any case): so does the import of either.
  func checkOneJustfile() throws(ImportError) {
    let name = String(path.split(separator: "/").last ?? "")
    let candidates = ["justfile", ".justfile"]
    guard candidates.contains(name.lowercased()) else { return }
    let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
    guard let stream = opendir(directory.isEmpty ? "/" : directory) else { return }
    defer { closedir(stream) }
    var found: [String] = []
    while let entry = readdir(stream) {
      let entryName = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      }
      if candidates.contains(entryName.lowercased()) { found.append(entryName) }
    }
    guard found.count > 1 else { return }
    throw ImportError(
      file: path, line: nil,
      "just refuses it: multiple candidate justfiles found in `\(directory)`: "
        + found.sorted().map { "`\($0)`" }.joined(separator: " and "))
  }
}

extension JustfileImporter {
  /// just reads `.env` files with dotenvy, which refuses an unquoted value holding a blank
  /// (`FOO=bar baz`) that runner reads (as docker compose does): reported for each such line of
  /// a `.env` file the import finds now.
  func checkDotenvFiles(_ conversion: inout JustfileConversion, _ justfile: Justfile) {
    guard
      let setting = justfile.settings.first(where: {
        ["dotenv-load", "dotenv-filename", "dotenv-path", "dotenv-required"].contains($0.name)
      })
    else { return }
    let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) + "/" : ""
    // just skips a `.env` that is a directory; runner would stop at it.
    conversion.file.dotenv.removeAll { dotenv in
      let file = dotenv.path.hasPrefix("/") ? dotenv.path : directory + dotenv.path
      guard Self.isDirectory(file) else { return false }
      conversion.report.approximate(
        setting.source, at: setting.line, "\(dotenv.path) is a directory now, which just skips: left out")
      return true
    }
    for dotenv in conversion.file.dotenv {
      let file = dotenv.path.hasPrefix("/") ? dotenv.path : directory + dotenv.path
      guard let text = Self.readText(file) else { continue }
      for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        var rest = Substring(JustText.trimmed(line))
        if rest.hasPrefix("export ") { rest = rest.dropFirst(7) }
        guard !rest.hasPrefix("#"), let equals = rest.firstIndex(of: "=") else { continue }
        var value = Substring(JustText.trimmed(rest[rest.index(after: equals)...]))
        guard let first = value.first, first != "'", first != "\"" else { continue }
        if let comment = value.firstRange(of: " #") { value = value[..<comment.lowerBound] }
        guard JustText.trimmed(value).contains(where: JustText.isBlank) else { continue }
        conversion.report.notCarried(
          setting.source, at: setting.line,
          "\(dotenv.path):\(index + 1) holds an unquoted value with a blank, which just refuses and runner "
            + "reads whole: quote it")
      }
    }
  }

  /// A file's text, or nil when it cannot be read.
  static func readText(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while bytes.count < 1 << 20 {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
