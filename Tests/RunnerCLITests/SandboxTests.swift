import Foundation
import Testing

/// `sandbox: strict` through the built binary: Landlock holds a task to reading of the project
/// only its sources and its dependencies' outputs, and to writing only its outputs and its
/// temporary directory; what it was refused, or wrote beside its outputs, fails it by name.
/// Whether this kernel has Landlock, asked of runner itself.
private let landlock: Bool = {
  guard let project = try? TaskFileProject("tasks:\n  t:\n    run: 'true'\n    sandbox: strict\n") else { return false }
  defer { project.remove() }
  guard let output = try? project.run("t") else { return false }
  return !output.stdout.contains("needs Landlock")
}()

@Suite(.enabled(if: landlock, "needs Landlock (Linux 5.13 or later)"))
struct SandboxTests {
  func project(_ tasks: String) throws -> TaskFileProject {
    let project = try TaskFileProject(tasks)
    try project.write("src/a.txt", "hello\n")
    try project.write("src/secret.txt", "the-secret\n")
    return project
  }

  /// A strict task cannot open a fifo of runner's: it gets the jobserver as two descriptors,
  /// and make (reading them) runs its jobs side by side.
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/make"), "needs /usr/bin/make"))
  func aStrictTaskGetsTheJobserverAsDescriptors() throws {
    let project = try project(
      """
      tasks:
        build:
          run: |
            echo "[$MAKEFLAGS]"
            make -s -f src/jobs.mk > out/log.txt
          sources: [src/jobs.mk]
          outputs: [out/log.txt]
          sandbox: strict
          jobserver: fifo
      """)
    defer { project.remove() }
    try project.write(
      "src/jobs.mk",
      "all: a b\na b:\n\t@echo start $@; touch $$TMPDIR/$@; while [ ! -e $$TMPDIR/a ] || [ ! -e $$TMPDIR/b ]; do sleep 0.05; done; echo end $@\n"
    )
    try project.write("out/.keep", "")
    let result = try project.run("-j2", "build")
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(
      result.stdout.range(of: #"\[ -j2 --jobserver-auth=\d+,\d+\]"#, options: .regularExpression) != nil,
      "\(result.stdout)")
  }

  @Test func aTaskThatKeepsToWhatItDeclaresRunsAndIsKept() throws {
    let project = try project(
      """
      tasks:
        gen:
          run: |
            cat src/a.txt > out/gen.txt
            echo scratch > "$TMPDIR/x" && cat "$TMPDIR/x"
            echo "word=from-gen" >> "$RUNNER_OUTPUT"
            ls /usr/bin > /dev/null
          sources: [src/a.txt]
          outputs: [out/gen.txt]
          sandbox: strict
        use:
          deps: [gen]
          run: cat out/gen.txt > app.txt && echo "$WORD" >> app.txt
          env:
            WORD: ${{ deps.gen.outputs.word }}
          outputs: [app.txt]
          sandbox: strict

      """)
    defer { project.remove() }
    let first = try project.run("use")
    #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
    #expect(project.read("app.txt") == "hello\nfrom-gen\n")
    let second = try project.run("use")
    #expect(second.status == 0 && second.stdout.contains("✓ gen up to date"), "\(second.stdout)")
    #expect(try project.run("--describe", "use").stdout.contains("sandbox"))
  }

  @Test func aReadOfAnUndeclaredProjectFileFailsTheTaskByName() throws {
    let project = try project(
      """
      tasks:
        peek:
          run: cat src/secret.txt || true
          sources: [src/a.txt]
          sandbox: strict

      """)
    defer { project.remove() }
    let output = try project.run("peek")
    #expect(output.status == 1)
    #expect(
      output.stdout.contains(
        "tasks.yml:2:3): sandbox: strict: refused reading src/secret.txt (not among its sources or its dependencies' outputs)"
      ), "\(output.stdout)")
    #expect(!output.stdout.contains("the-secret"))
  }

  @Test func writesBesideItsOutputsAreRefusedOrNamed() throws {
    let outside = FileManager.default.temporaryDirectory.appendingPathComponent("runner-sandbox-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: outside) }
    let project = try project(
      """
      tasks:
        source:
          run: echo x > src/new.txt
          sandbox: strict
        away:
          run: echo x > "\(outside.path)/file"
          sandbox: strict
        sibling:
          run: echo x > out/extra.txt; echo y > out/ok.txt
          outputs: [out/ok.txt]
          sandbox: strict
        remover:
          run: rm -f src/a.txt
          sandbox: strict

      """)
    defer { project.remove() }
    let source = try project.run("source")
    #expect(source.status == 1)
    #expect(source.stdout.contains("refused writing src/new.txt (not its outputs or its temporary directory)"))
    #expect(project.read("src/new.txt") == nil)
    let away = try project.run("away")
    #expect(away.stdout.contains("refused writing \(outside.path)/file"), "\(away.stdout)")
    #expect(!FileManager.default.fileExists(atPath: outside.path + "/file"))
    let sibling = try project.run("sibling")
    #expect(sibling.status == 1)
    #expect(sibling.stdout.contains("wrote out/extra.txt, which its outputs do not declare"), "\(sibling.stdout)")
    let remover = try project.run("remover")
    #expect(remover.status == 1)
    #expect(remover.stdout.contains("refused removing src/a.txt"), "\(remover.stdout)")
    #expect(project.read("src/a.txt") == "hello\n")
  }

  /// The kernel grants an output's whole directory (a new file is granted by its directory);
  /// what the task read there beyond what it declares still fails it, by name. A link beside
  /// the project that leads into it opens nothing.
  @Test func readsBesideAnOutputAndThroughALinkAreNamed() throws {
    let project = try project(
      """
      tasks:
        beside:
          run: cat src/a.txt src/secret.txt > app.txt
          sources: [src/a.txt]
          outputs: [app.txt]
          sandbox: strict

      """)
    defer { project.remove() }
    let link = project.directory.path + "-link"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: project.directory.path)
    defer { try? FileManager.default.removeItem(atPath: link) }
    try project.write(
      "tasks.yml",
      (project.read("tasks.yml") ?? "")
        + "  linked:\n    run: cat \(link)/src/secret.txt || true\n    sources: [src/a.txt]\n    sandbox: strict\n")
    let beside = try project.run("beside")
    #expect(beside.status == 1)
    #expect(beside.stdout.contains("refused reading src/secret.txt"), "\(beside.stdout)")
    let linked = try project.run("linked")
    #expect(linked.status == 1)
    #expect(linked.stdout.contains("refused reading src/secret.txt"), "\(linked.stdout)")
    #expect(!linked.stdout.contains("the-secret"))
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/cc"), "needs /usr/bin/cc"))
  func aLinkerProbingItsSearchPathIsNotRefused() throws {
    let project = try project(
      """
      tasks:
        build:
          run: cc -o build/app src/main.c && rm -f /nonexistent-runner-path
          sources: [src/main.c]
          outputs: [build/app]
          sandbox: strict

      """)
    defer { project.remove() }
    try project.write("src/main.c", "int main(void) { return 0; }\n")
    let output = try project.run("build")
    #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
  }

  @Test func turningTheSandboxOnRunsTheTaskAgain() throws {
    let tasks = """
      tasks:
        build:
          run: cat src/a.txt > out.txt
          sources: [src/a.txt]
          outputs: [out.txt]

      """
    let project = try project(tasks)
    defer { project.remove() }
    #expect(try project.run("build").status == 0)
    try project.write("tasks.yml", tasks + "    sandbox: strict\n")
    let output = try project.run("build")
    #expect(output.status == 0)
    #expect(!output.stdout.contains("up to date"), "\(output.stdout)")
  }

  @Test func onlyStrictAndNotWithSourcesAuto() throws {
    let project = try project(
      """
      tasks:
        a:
          run: 'true'
          sandbox: loose
        b:
          run: 'true'
          sources: auto
          sandbox: strict

      """)
    defer { project.remove() }
    let output = try project.run("a")
    #expect(output.status == 2)
    #expect(output.stderr.contains("tasks.yml:4:14"), "\(output.stderr)")
    #expect(output.stderr.contains("takes only strict"))
    #expect(output.stderr.contains("cannot go with 'sources: auto'"), "\(output.stderr)")
  }
}
