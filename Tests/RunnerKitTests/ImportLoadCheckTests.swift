import Foundation
import RunnerKit
import Testing

/// `runner import` loads what it would write with runner's own loader first: a file that
/// would not load is refused, with the loader's words.
@Suite struct ImportLoadCheckTests {
  let path = FileManager.default.temporaryDirectory.appendingPathComponent("runner-import-check/tasks.yml").path

  @Test func aFileThatLoadsPasses() {
    #expect(ImportRun.loadProblems("tasks:\n  a:\n    run: echo a\n", includes: [], at: path) == nil)
  }

  @Test func anUndefinedDependencyOrAnUnknownParamIsFound() {
    let missing = ImportRun.loadProblems("tasks:\n  a:\n    deps: [nowhere]\n", includes: [], at: path)
    #expect(missing?.contains("nowhere") == true, "\(missing ?? "nil")")
    let param = ImportRun.loadProblems(
      "tasks:\n  a:\n    dir: ${{ params.ROOT_DIR }}\n    run: echo a\n", includes: [], at: path)
    #expect(param?.contains("ROOT_DIR") == true, "\(param ?? "nil")")
  }

  @Test func nothingRunsWhileChecking() throws {
    let marker = FileManager.default.temporaryDirectory.appendingPathComponent("runner-import-ran-\(UUID())").path
    let yaml = "params:\n  x: { default: { sh: touch \(marker) } }\ntasks:\n  a:\n    run: echo a\n"
    #expect(ImportRun.loadProblems(yaml, includes: [], at: path) == nil)
    #expect(!FileManager.default.fileExists(atPath: marker))
  }

  @Test func anIncludeAlreadyThereIsNotJudged() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-import-\(UUID())")
    try FileManager.default.createDirectory(
      at: directory.appendingPathComponent("sub"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try "version: '3'\ntasks:\n  x:\n    cmds: [echo]\n".write(
      to: directory.appendingPathComponent("sub/tasks.yml"), atomically: true, encoding: .utf8)
    let yaml = "includes:\n  sub: sub/tasks.yml\ntasks:\n  a:\n    run: echo a\n"
    let root = directory.appendingPathComponent("tasks.yml").path
    #expect(ImportRun.loadProblems(yaml, includes: ["sub/tasks.yml"], at: root) == nil)
    let broken = "includes:\n  sub: sub/tasks.yml\ntasks:\n  a:\n    dpes: [nowhere]\n"
    #expect(ImportRun.loadProblems(broken, includes: ["sub/tasks.yml"], at: root) != nil)
    // A malformed .env the file reads is refused, as the tools refuse it.
    try "SOME_VAR\n".write(to: directory.appendingPathComponent(".env"), atomically: true, encoding: .utf8)
    let dotenv = "dotenv: [{ path: .env, optional: true }]\ntasks:\n  a:\n    run: echo a\n"
    #expect(ImportRun.loadProblems(dotenv, includes: [], at: root)?.contains(".env:1") == true)
  }

  @Test func anIncludeNotImportedYetLeavesTheCheckAtTheSchema() {
    let yaml = "includes:\n  lib: lib/tasks.yml\ntasks:\n  a:\n    deps: [lib:build]\n"
    #expect(ImportRun.loadProblems(yaml, includes: ["lib/tasks.yml"], at: path) == nil)
    #expect(ImportRun.loadProblems("tasks:\n  a:\n    dpes: [b]\n", includes: ["lib/tasks.yml"], at: path) != nil)
  }

  /// An optional include not written yet: the whole file is still loaded, and only names in
  /// its namespace are let pass.
  @Test func anOptionalIncludeNotImportedYetExcusesItsNamesOnly() {
    let yaml = "includes:\n  lib: { path: lib/tasks.yml, optional: true }\ntasks:\n  a:\n    deps: [lib:build]\n"
    #expect(ImportRun.loadProblems(yaml, includes: [], optional: [("lib", "lib/tasks.yml")], at: path) == nil)
    let other = "includes:\n  lib: { path: lib/tasks.yml, optional: true }\ntasks:\n  a:\n    deps: [nowhere]\n"
    #expect(ImportRun.loadProblems(other, includes: [], optional: [("lib", "lib/tasks.yml")], at: path) != nil)
  }
}
