import Foundation
import Testing

/// Params over every `env` layer, scopes that do not leak, and what counts for re-running.
@Suite struct ScopeAndKeyTests {
  @Test func paramsBeatEveryEnvLayerAndTheRootEnvReadsANodesValues() throws {
    let project = try TaskFileProject(
      """
      params: { mode: debug }
      env: { OUT: "build/${mode}", OUT2: "out-${{ params.mode }}" }
      tasks:
        build: { env: { mode: fromtaskenv }, run: 'echo "mode=$mode $OUT $OUT2"' }
        release: { deps: [{ task: build, with: { mode: release } }] }
      """)
    defer { project.remove() }
    let cli = try project.run("build", "mode=fast")
    #expect(cli.stdout.contains("build | mode=fast build/fast out-fast"), "\(cli.stdout)\(cli.stderr)")
    let with = try project.run("release")
    #expect(with.stdout.contains("mode=release build/release out-release"), "\(with.stdout)\(with.stderr)")
  }

  @Test func anIncludesDefaultDoesNotLeakIntoRootTasks() throws {
    let project = try TaskFileProject(
      "includes: { api: api/tasks.yml }\nparams: { mode: debug }\ntasks:\n  build: 'echo \"root build $mode\"'\n")
    defer { project.remove() }
    try project.write(
      "api/tasks.yml", "params: { mode: apimode }\ntasks:\n  test: { deps: [':build'], run: 'echo \"api $mode\"' }\n")
    let output = try project.run("api:test")
    #expect(output.stdout.contains("root build debug"), "\(output.stdout)\(output.stderr)")
    #expect(output.stdout.contains("api apimode"))
  }

  @Test func argumentsReachTheDefaultTaskAndAnIncludesDefault() throws {
    let project = try TaskFileProject(
      "includes: { api: api/tasks.yml }\ntasks:\n  default: 'echo \"default [$*]\"'\n")
    defer { project.remove() }
    try project.write("api/tasks.yml", "default: [serve]\ntasks:\n  serve: 'echo \"serve [$*]\"'\n")
    #expect(try project.run("--", "a", "b").stdout.contains("default [a b]"))
    #expect(try project.run("api", "--", "c").stdout.contains("serve [c]"))
  }

  @Test func aWithThatGrowsItsOwnValueIsAnErrorNotAHang() throws {
    let project = try TaskFileProject(
      "tasks:\n  a:\n    params: { n: '' }\n    deps: [{ task: a, with: { n: '${{ params.n }}x' } }]\n    run: echo\n")
    defer { project.remove() }
    let output = try project.run("--list")
    #expect(output.status == 2)
    #expect(output.stderr.contains("tasks.yml:2:3: error: task 'a' has more than 10000 distinct param values"))
  }

  @Test func dirSourcesAndOutputsReadParamsAndMatrixValues() throws {
    let project = try TaskFileProject(
      """
      params: { mode: debug }
      tasks:
        build:
          matrix: { pkg: [core, web] }
          dir: ${{ matrix.pkg }}
          sources: ["src/*.txt", "!src/skip.txt"]
          outputs: ["out-${{ params.mode }}.txt"]
          run: cat src/*.txt > out-$mode.txt
        bad: { deps: [build], outputs: ["${{ deps.build.outputs.x }}"], run: echo }
      """)
    defer { project.remove() }
    for package in ["core", "web"] {
      try project.write("\(package)/src/a.txt", "\(package)\n")
      try project.write("\(package)/src/skip.txt", "skip\n")
    }
    let bad = try project.run("build")
    #expect(bad.status == 2)
    #expect(bad.stderr.contains("'outputs' is known before the run"), "\(bad.stderr)")
    try project.write(
      "tasks.yml", (project.read("tasks.yml") ?? "").replacingOccurrences(of: "  bad:", with: "  good:"))
    try project.write(
      "tasks.yml", (project.read("tasks.yml") ?? "").replacingOccurrences(of: "${{ deps.build.outputs.x }}", with: "x"))
    let output = try project.run("build", "mode=release")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read("core/out-release.txt") == "core\nskip\n")
    #expect(project.read("web/out-release.txt") == "web\nskip\n")
    try project.write("web/src/skip.txt", "changed, but excluded\n")
    let again = try project.run("build", "mode=release")
    // An excluded source changed: nothing to run.
    #expect(again.stdout.contains("✓ build[pkg=web] up to date"), "\(again.stdout)")
  }

  @Test func aTypoInAConditionIsAnError() throws {
    let project = try TaskFileProject(
      "params: { mode: debug }\ntasks:\n  a: { if: \"${{ params.mdoe == 'x' }}\", run: echo }\n")
    defer { project.remove() }
    let output = try project.run("a")
    #expect(output.status == 2)
    #expect(
      output.stderr.contains("the 'if' of task 'a' reads params.mdoe, which it does not have"), "\(output.stderr)")
  }

  @Test func aMatrixIncludeWithoutAxesExtendsEveryCombination() throws {
    let project = try TaskFileProject(
      "tasks:\n  t:\n    matrix: { py: ['1', '2'], include: [{ extra: x }] }\n    env: { E: '${{ matrix.extra }}' }\n    run: echo \"$E\"\n"
    )
    defer { project.remove() }
    let plan = try project.run("-n", "t")
    #expect(plan.stdout.contains("t[py=1,extra=x]"), "\(plan.stdout)\(plan.stderr)")
    #expect(plan.stdout.contains("t[py=2,extra=x]"))
    #expect(!plan.stdout.contains("t[extra=x]"))
  }

  @Test func aCustomShellGetsEveryCommand() throws {
    let project = try TaskFileProject("tasks:\n  a: { shell: [sh, -c, 'echo \"via custom: $0\"'], run: true }\n")
    defer { project.remove() }
    let output = try project.run("a")
    #expect(output.stdout.contains("via custom: true"), "\(output.stdout)\(output.stderr)")
  }

  @Test func editsOfIncludedAndDotenvFilesAreNeverReplayed() throws {
    let project = try TaskFileProject("includes: { sub: sub/tasks.yml }\ntasks:\n  all: { deps: [sub:hello] }\n")
    defer { project.remove() }
    let hello = "tasks:\n  hello: { sources: [in.txt], outputs: [out.txt], run: 'echo %@ > out.txt' }\n"
    try project.write("sub/in.txt", "x\n")
    try project.write("sub/tasks.yml", hello.replacingOccurrences(of: "%@", with: "one"))
    let window = ["RUNNER_STAMP_WINDOW": "0s"]
    _ = try project.run("all", environment: window)
    _ = try project.run("all", environment: window)
    try project.write("sub/tasks.yml", hello.replacingOccurrences(of: "%@", with: "two"))
    let edited = try project.run("all", environment: window)
    #expect(edited.status == 0, "\(edited.stderr)")
    #expect(project.read("sub/out.txt") == "two\n", "\(edited.stdout)")
  }

  @Test func aDotenvNameTheShellOverridesStillCountsInTheKey() throws {
    let project = try TaskFileProject(
      "dotenv: [.env]\ntasks:\n  t: { sources: [in.txt], outputs: [out.txt], run: 'echo \"$FOO\" > out.txt' }\n")
    defer { project.remove() }
    try project.write(".env", "FOO=dot\n")
    try project.write("in.txt", "x\n")
    _ = try project.run("t", environment: ["FOO": "a"])
    _ = try project.run("t", environment: ["FOO": "b"])
    #expect(project.read("out.txt") == "b\n")
  }
}
