import Foundation
import Testing

@testable import RunnerCache
@testable import RunnerModel

/// A task's key is the digest of its REAPI Action: the same in any checkout, for any user, and
/// changed by whatever changes what the task does.
@Suite struct ActionKeyTests {
  static let file = """
    params:
      mode: debug
    env:
      LEVEL: "2"
    tasks:
      gen:
        run: mkdir -p out && cat src/*.txt > out/all.txt && echo "count=$(ls src | wc -l)" >> $RUNNER_OUTPUT
        sources: ["src/*.txt"]
        outputs: [out/all.txt]
      build:
        deps: [gen]
        dir: app
        env: { COUNT: "${{ deps.gen.outputs.count }}", FLAVOUR: plain }
        run: echo "$COUNT $FLAVOUR $mode $LEVEL" > built.txt
        sources: ["*.c", "../src/one.txt"]
        outputs: [built.txt]
    """

  func checkout(_ text: String = Self.file) throws -> RunHarness {
    let harness = try RunHarness(text)
    try harness.write("src/one.txt", "1\n")
    try harness.write("src/two.txt", "2\n")
    try harness.write("app/main.c", "int main(void) { return 0; }\n")
    return harness
  }

  func keys(_ harness: RunHarness, environment: [String: String] = [:]) async throws -> [String: String] {
    let run = try await harness.runCached(environment: environment)
    #expect(run.summary.exitCode == 0)
    return ["gen", "build"].reduce(into: [:]) { keys, name in keys[name] = run.store.record(name)?.fingerprint }
  }

  @Test func twoCheckoutsWithAnotherHomeAndUserGetTheSameKeys() async throws {
    let first = try await keys(checkout(), environment: ["HOME": "/home/ann", "USER": "ann"])
    let second = try await keys(checkout(), environment: ["HOME": "/root", "USER": "root", "LOGNAME": "x"])
    #expect(first.count == 2)
    #expect(first == second)
  }

  @Test func aSourceTheCommandAnEnvValueOrAParamChangesTheKey() async throws {
    let harness = try checkout()
    let base = try await keys(harness)
    try harness.write("app/main.c", "int main(void) { return 1; }\n")
    let source = try await keys(harness)
    #expect(source["build"] != base["build"] && source["gen"] == base["gen"])

    let edits: [(String, String)] = [
      ("> built.txt", ">> built.txt"),  // the command
      ("FLAVOUR: plain", "FLAVOUR: spicy"),  // a declared env value
      ("mode: debug", "mode: release"),  // a param
      ("LEVEL: \"2\"", "LEVEL: \"3\""),  // the file's env
    ]
    var seen: Set<String> = [source["build"]!]
    for (old, new) in edits {
      try harness.write("tasks.yml", Self.file.replacingOccurrences(of: old, with: new))
      let changed = try await keys(harness)
      #expect(seen.insert(changed["build"]!).inserted, "\(new) changes build's key")
      try harness.write("tasks.yml", Self.file)
    }
    // A chmod +x on a source is part of the input tree.
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: harness.path("app/main.c"))
    #expect(try await keys(harness)["build"].map { !seen.contains($0) } == true)
  }

  @Test func anInheritedVariableCountsOnlyWhenDeclared() async throws {
    let harness = try checkout()
    let base = try await keys(harness, environment: ["CC": "gcc"])
    #expect(try await keys(harness, environment: ["CC": "clang"]) == base)
    try harness.write("tasks.yml", "key_env: [CC]\n" + Self.file)
    let gcc = try await keys(harness, environment: ["CC": "gcc"])
    let clang = try await keys(harness, environment: ["CC": "clang"])
    #expect(gcc["gen"] != clang["gen"] && gcc["build"] != clang["build"])
  }

  /// The Action of `build`: argv as runner runs it, the declared environment, the output
  /// patterns, the working directory and the input tree from the task file's directory.
  @Test func theActionNamesWhatRuns() throws {
    let harness = try checkout()
    let build = harness.graph.tasks[harness.index("build")]
    var record = FileRecord(path: "main.c", hash: String(repeating: "e", count: 64), size: 29)
    let inside = ActionKey(task: build, environment: [("COUNT", "2")], dependencies: "d", sources: [record])
    #expect(inside.command.arguments == ["/bin/sh", "-e", "-c", "echo \"$COUNT $FLAVOUR $mode $LEVEL\" > built.txt"])
    #expect(inside.command.outputPaths == ["built.txt"])
    #expect(inside.command.workingDirectory == "app")
    #expect(inside.isSelfContained)
    record.path = "../src/one.txt"
    let sibling = ActionKey(task: build, environment: [("COUNT", "2")], dependencies: "d", sources: [record])
    #expect(sibling.isSelfContained, "../src from app is still inside the task file's directory")
    #expect(sibling.digest != inside.digest)
    // A task without `dir`: its sources sit at their own paths in the input root.
    let gen = harness.graph.tasks[harness.index("gen")]
    let atRoot = ActionKey(
      task: gen, environment: [], dependencies: "d",
      sources: [FileRecord(path: "src/one.txt", hash: String(repeating: "a", count: 64), size: 2)])
    #expect(atRoot.isSelfContained)
    #expect(atRoot.command.workingDirectory == "")
    #expect(atRoot.directories.count == 2, "the root and src/")
    #expect(String(decoding: atRoot.directories[0], as: UTF8.self).contains("src"))
    #expect(String(decoding: atRoot.directories[1], as: UTF8.self).contains("one.txt"))
    let twoCommands = try RunHarness("tasks:\n  t:\n    run: [make, make install]\n    sources: [x]\n")
    #expect(
      ActionKey.arguments(of: twoCommands.graph.tasks[0])
        == ["/bin/sh", "-e", "-c", "(\nmake\n)\n(\nmake install\n)"])
    #expect(ActionKey.normalized("a/./b/../c") == "a/c")
    #expect(ActionKey.normalized("a/../..") == nil)
  }
}
