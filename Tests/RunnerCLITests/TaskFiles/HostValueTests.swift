import Foundation
import Testing

/// `runner.root`, `runner.exe_suffix`, and param defaults that read other params or are what a
/// command prints (`default: { sh: CMD }`).
@Suite struct HostValueTests {
  static let root = """
    params:
      version: { default: { sh: "echo run >> sh.log; echo 1.2.3" } }
      tag: v${{ params.version }}-${{ runner.os }}
    includes:
      sub: sub/tasks.yml
    tasks:
      show:
        env: { ROOT: "${{ runner.root }}", EXE: "app${{ runner.exe_suffix }}", TAG: "${{ params.tag }}" }
        run: echo "$ROOT|$EXE|$TAG" > out.txt
      again: { deps: [show], run: 'echo "$version" > again.txt' }
    """

  static let included = """
    tasks:
      where:
        dir: ${{ runner.root }}/sub/deep
        sources: ['${{ runner.root }}/sub/input.txt']
        run: pwd > where.txt
    """

  func project() throws -> TaskFileProject {
    let project = try TaskFileProject(Self.root)
    try project.write("sub/tasks.yml", Self.included)
    try project.write("sub/input.txt", "x\n")
    try FileManager.default.createDirectory(
      at: project.directory.appendingPathComponent("sub/deep"), withIntermediateDirectories: true)
    return project
  }

  @Test func hostValuesAndComputedDefaultsReachTheTask() throws {
    let project = try project()
    defer { project.remove() }
    let output = try project.run("again")
    #expect(output.status == 0, "\(output.stderr)")
    let os = try project.shell("uname -s | tr A-Z a-z").trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(project.read("out.txt") == "\(project.directory.path)|app|v1.2.3-\(os)\n")
    #expect(project.read("again.txt") == "1.2.3\n")
    // The command ran once for the run, though two tasks read its param.
    #expect(project.read("sh.log") == "run\n")
  }

  @Test func aDefaultThatReadsAParamFollowsTheCommandLine() throws {
    let project = try project()
    defer { project.remove() }
    let output = try project.run("show", "version=2")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read("out.txt")?.hasSuffix("|app|v2-linux\n") == true, "\(project.read("out.txt") ?? "")")
    // Given on the command line, the command is not run.
    #expect(project.read("sh.log") == nil)
  }

  /// In `dir` and `sources`, `runner.root` is the way up from the included file (`..`), so a
  /// key never holds where the checkout is; the task still runs in the right place.
  @Test func rootInAnIncludedFilesPathsIsTheWayUp() throws {
    let project = try project()
    defer { project.remove() }
    let output = try project.run("sub:where")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read("sub/deep/where.txt") == project.directory.path + "/sub/deep\n")
    let describe = try project.run("--describe", "sub:where")
    #expect(describe.stdout.contains("sources: ../../sub/input.txt"), "\(describe.stdout)\(describe.stderr)")
    #expect(!describe.stdout.contains(project.directory.path + "/sub/input.txt"), "\(describe.stdout)")
  }

  @Test func aDefaultFollowsTheValueAWithGives() throws {
    let project = try TaskFileProject(
      """
      tasks:
        build:
          params: { mode: debug, out: "dist/${{ params.mode }}" }
          run: echo "$out" >> log
        release: { deps: [{ task: build, with: { mode: release } }] }
        both: { deps: [build, release] }
      """)
    defer { project.remove() }
    let output = try project.run("-j1", "both")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read("log")?.split(separator: "\n").sorted() == ["dist/debug", "dist/release"])
  }

  /// A file param given on the way down stays, although a `with:` further down sets the param
  /// its default reads.
  @Test func aValueGivenOnTheWayDownIsKept() throws {
    let project = try TaskFileProject(
      """
      params: { mode: debug, out: "dist/${{ params.mode }}" }
      tasks:
        build: { run: echo "$out" >> log }
        pkg: { deps: [{ task: build, with: { mode: release } }] }
        top: { deps: [{ task: pkg, with: { out: custom } }] }
      """)
    defer { project.remove() }
    let output = try project.run("top")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read("log") == "custom\n", "\(output.stdout)")
  }

  @Test func aFailingDefaultCommandIsAnErrorAtTheParam() throws {
    let project = try TaskFileProject(
      """
      params:
        version: { default: { sh: "exit 3" } }
      tasks:
        show: echo "$version"
      """)
    defer { project.remove() }
    let output = try project.run("show")
    #expect(output.status == 2)
    #expect(
      output.stderr.contains("tasks.yml:2:3: error: the default of param 'version': 'exit 3' failed (exit status 3)"),
      "\(output.stderr)")
  }

  @Test func anUnknownRunnerValueSaysWhichThereAre() throws {
    let project = try TaskFileProject("tasks:\n  a: { env: { X: '${{ runner.home }}' }, run: echo }\n")
    defer { project.remove() }
    let output = try project.run("a")
    #expect(output.status == 2)
    #expect(output.stderr.contains("'runner' has 'os', 'arch', 'exe_suffix', 'root' and 'args'"), "\(output.stderr)")
  }

  /// Gates read what `env` values read: `${NAME}`, params and host values.
  @Test func gatesReadValuesAsEnvDoes() throws {
    let project = try TaskFileProject(
      """
      params: { port: "8080" }
      tasks:
        up:
          env: { MARK: ready.flag }
          wait_for:
            - { file: "${MARK}", timeout: 5s }
            - tcp: "127.0.0.1:${{ params.port }}"
          run: echo up
        early:
          env: { MARK: ready.flag }
          wait_for: { file: "${MARK}", timeout: 5s }
          run: echo early
      """)
    defer { project.remove() }
    let describe = try project.run("--describe", "up", "port=9090")
    #expect(describe.stdout.contains("file 'ready.flag' (timeout 5.00s)"), "\(describe.stdout)\(describe.stderr)")
    #expect(describe.stdout.contains("tcp 127.0.0.1:9090"), "\(describe.stdout)")
    try project.write("ready.flag", "")
    let ran = try project.run("early")
    #expect(ran.status == 0, "\(ran.stdout)\(ran.stderr)")
  }

  @Test func aGateThatReadsAWrongValueIsOneErrorAtTheGate() throws {
    let project = try TaskFileProject(
      """
      tasks:
        up:
          env: { HOST: nowhere }
          wait_for: { tcp: "${HOST}" }
          run: echo up
      """)
    defer { project.remove() }
    let output = try project.run("up")
    #expect(output.status == 2)
    #expect(
      output.stderr.contains(
        "tasks.yml:4:15: error: 'tcp' of a gate in task 'up' must be HOST:PORT, found 'nowhere' (from '${HOST}')"),
      "\(output.stderr)")
    #expect(!output.stderr.contains("needs exactly one"), "\(output.stderr)")
  }

  /// `runner.args`: the words after `--`, joined with spaces, in `with:`, `env` and `if:`.
  @Test func runnerArgsAreTheWordsAfterTheDashes() throws {
    let project = try TaskFileProject(
      """
      tasks:
        top:
          deps: [{ task: show, with: { words: "${{ runner.args }}" } }, gated]
          env: { ALL: "${{ runner.args }}" }
          run: echo "top $ALL / $#"
        show:
          params: { words: "" }
          run: echo "show $words / $#"
        gated:
          if: ${{ runner.args != '' }}
          run: echo gated
      """)
    defer { project.remove() }
    let output = try project.run("-j1", "top", "--", "a b", "c")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("| show a b c / 0\n"), "\(output.stdout)")
    #expect(output.stdout.contains("| top a b c / 2\n"), "\(output.stdout)")
    #expect(output.stdout.contains("| gated\n"), "\(output.stdout)")
    let none = try project.run("-j1", "top")
    #expect(none.status == 0, "\(none.stderr)")
    #expect(none.stdout.contains("| top  / 0\n"), "\(none.stdout)")
    #expect(!none.stdout.contains("| gated"), "\(none.stdout)")
  }
}
