import Foundation
import Testing

/// `runner import` through the binary: where it writes, what it refuses, its exit codes, and
/// that an imported file runs its commands in the order the original tool does (real runs at
/// -j1 of files whose commands only print, against make, just and go-task when installed).
@Suite struct ImportTests {
  static let corpus = BinaryRunner.packageRoot.appendingPathComponent("Tests/RunnerImportTests/Corpus")

  @Test func writesBesideTheFileRefusesToOverwriteAndExitsThreeWithAReport() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("sub/Taskfile.yml", "version: '3'\ntasks:\n  hi:\n    cmds: ['echo {{.CLI_ARGS}}']\n")
    let first = try project.run("import", "sub/Taskfile.yml")
    #expect(first.status == 3, "\(first.stderr)")
    #expect(first.stderr.contains("sub/Taskfile.yml:4: approximate: {{.CLI_ARGS}}"), "\(first.stderr)")
    #expect(project.read("sub/tasks.yml")?.contains("run: echo \"$@\"") == true)
    let again = try project.run("import", "sub/Taskfile.yml")
    #expect(again.status == 2 && again.stderr.contains("exists: give --force"), "\(again.stderr)")
    #expect(try project.run("import", "sub/Taskfile.yml", "--force").status == 3)
    let ran = try project.run("sub/tasks.yml", "hi", "--", "a b")
    #expect(ran.stdout.contains("hi | a b"), "\(ran.stdout)")
  }

  @Test func anExactImportExitsZeroAndDashWritesToStdout() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("Makefile", ".PHONY: hello\nhello:\n\t@echo hello\n")
    let output = try project.run("import", "Makefile", "-o", "-")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("hello:\n    run: echo hello"), "\(output.stdout)")
    #expect(project.read("tasks.yml") == nil)
  }

  /// An OUT that is not a regular file (a pipe here, `/dev/null` or `/dev/stdout` in use) is
  /// written into: a rename would have replaced it with a file.
  @Test func aPipeIsWrittenIntoNotReplaced() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("Makefile", ".PHONY: hello\nhello:\n\t@echo hello\n")
    let fifo = project.directory.appendingPathComponent("out.fifo").path
    #expect(mkfifo(fifo, 0o600) == 0)
    let reader = Process()
    reader.executableURL = URL(fileURLWithPath: "/bin/sh")
    reader.arguments = ["-c", "cat out.fifo > got.yml"]
    reader.currentDirectoryURL = project.directory
    try reader.run()
    let output = try project.run("import", "Makefile", "-o", "out.fifo", "--force")
    reader.waitUntilExit()
    #expect(output.status == 0, "\(output.stderr)")
    var info = stat()
    #expect(stat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO, "still a pipe")
    #expect(project.read("got.yml")?.contains("run: echo hello") == true)
  }

  @Test func unreadableOrUnknownInputIsAUsageError() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("notes.txt", "hello\n")
    try project.write("Taskfile.yml", "version: '3'\ntasks: [oops\n")
    let unknown = try project.run("import", "notes.txt")
    #expect(unknown.status == 2 && unknown.stderr.contains("cannot tell what 'notes.txt' is"), "\(unknown.stderr)")
    let missing = try project.run("import", "nope/Makefile")
    #expect(missing.status == 2, "\(missing.stderr)")
    let broken = try project.run("import", "Taskfile.yml")
    #expect(broken.status == 2 && broken.stderr.contains("Taskfile.yml:"), "\(broken.stderr)")
    let format = try project.run("import", "notes.txt", "--format", "yaml")
    #expect(format.status == 2 && format.stderr.contains("unknown format 'yaml'"), "\(format.stderr)")
  }

  /// Every corpus file imports into a task file that loads (`--list`), included files stubbed.
  @Test(arguments: ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).sorted())
  func theCorpusImportsIntoFilesThatLoad(name: String) throws {
    let source = Self.corpus.appendingPathComponent(name)
    let input = try #require(
      ["Taskfile.yml", "justfile", "Makefile"].first {
        FileManager.default.fileExists(atPath: source.appendingPathComponent($0).path)
      })
    let project = try TaskFileProject()
    defer { project.remove() }
    // The input and the files it includes (all but the goldens).
    let files = FileManager.default.enumerator(atPath: source.path)?.compactMap { $0 as? String } ?? []
    for file in files where !file.hasPrefix("expected.") {
      var isDirectory: ObjCBool = false
      let path = source.appendingPathComponent(file).path
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
        continue
      }
      try project.write(file, String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8))
    }
    let imported = try project.run("import", input)
    #expect(imported.status == 0 || imported.status == 3, "\(imported.stderr)")
    for line in (project.read("tasks.yml") ?? "").split(separator: "\n") where line.hasPrefix("  ") {
      // An include's file is imported separately: a stub stands in for it here.
      // `  NAME: PATH` or `  NAME: { path: PATH, … }`.
      let words = line.split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",")) }
      let path = words.count == 2 ? words[1] : words.count > 3 && words[2] == "path:" ? words[3] : ""
      if words[0].hasSuffix(":"), path.hasSuffix("tasks.yml") {
        try project.write(path, "tasks:\n  stub: \"true\"\n")
      }
    }
    // Params whose default a command prints run it when the file loads (as go-task and just
    // run theirs): the commands the corpus uses need a repository and a .nvmrc.
    _ = try project.shell(
      "git init -q . && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m x && echo 20 > .nvmrc")
    let listed = try project.run("--list")
    #expect(listed.status == 0, "\(listed.stderr)\n\(project.read("tasks.yml") ?? "")")
  }
}
