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
    _ = try project.run("all")
    _ = try project.run("all")
    try project.write("sub/tasks.yml", hello.replacingOccurrences(of: "%@", with: "two"))
    let edited = try project.run("all")
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

/// What a second review found in the fixes: arguments on a plain file and on node names, parts
/// reading renamed outputs, chained re-reads, and params that must not flow.
@Suite struct SecondReviewTests {
  @Test func argumentsReachATargetOfAPlainFile() throws {
    let project = try TaskFileProject("tasks:\n  echo: 'echo \"args: $*\"'\n  default: 'echo \"default: $*\"'\n")
    defer { project.remove() }
    #expect(try project.run("echo", "--", "a", "b").stdout.contains("args: a b"))
    #expect(try project.run("--", "c").stdout.contains("default: c"))
  }

  @Test func argumentsReachANodeNamedWithValuesAndItsParts() throws {
    let project = try TaskFileProject(
      "tasks:\n  h: echo\n  t:\n    matrix: { x: [a, b] }\n    run: ['echo \"one $*\"', { task: h }, 'echo \"two $*\"']\n"
    )
    defer { project.remove() }
    let one = try project.run("t[x=a]", "--", "hi")
    #expect(one.stdout.contains("one hi"), "\(one.stdout)\(one.stderr)")
    #expect(one.stdout.contains("two hi"))
    let all = try project.run("t", "--", "yo")
    #expect(all.stdout.components(separatedBy: "one yo").count == 3, "\(all.stdout)")
  }

  @Test func partsReadTheirDependenciesOutputsUnderNodeNames() throws {
    let project = try TaskFileProject(
      """
      tasks:
        version: { params: { flavor: plain }, run: 'echo "tag=v-$flavor" >> $RUNNER_OUTPUT' }
        h: echo
        rel:
          deps: [{ task: version, with: { flavor: fancy } }]
          env: { TAG: "${{ deps.version.outputs.tag }}" }
          run: ['echo "first $TAG"', { task: h }, 'echo "last $TAG"']
      """)
    defer { project.remove() }
    let output = try project.run("rel")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("first v-fancy"))
    #expect(output.stdout.contains("last v-fancy"))
  }

  @Test func reReadRootEnvChainsAndOwnTaskParamsDoNotFlow() throws {
    let project = try TaskFileProject(
      """
      params: { mode: debug }
      env: { DIR: "build/${{ params.mode }}", OUT: "${DIR}/bin" }
      tasks:
        build: { env: { T: "${DIR}/x" }, run: 'echo "$mode $OUT $T"' }
        pkg: { deps: [{ task: build, with: { mode: release } }] }
        deploy: { params: { mode: fast }, deps: [build], run: echo }
      """)
    defer { project.remove() }
    let pkg = try project.run("pkg")
    #expect(pkg.stdout.contains("release build/release/bin build/release/x"), "\(pkg.stdout)\(pkg.stderr)")
    let deploy = try project.run("deploy")
    #expect(deploy.stdout.contains("build  | debug build/debug/bin build/debug/x"), "\(deploy.stdout)")
    #expect(!deploy.stdout.contains("build[mode=fast]"))
  }

  @Test func aMissingParamIsReportedOnceAndPatternsSkipParts() throws {
    let project = try TaskFileProject(
      """
      tasks:
        h: echo
        deploy: { params: { ENV: { required: true } }, run: [echo, { task: h }, echo] }
        t: { matrix: { x: [a, b] }, dir: "${{ matrix.x }}", run: echo }
      """)
    defer { project.remove() }
    let missing = try project.run("deploy")
    #expect(missing.stderr.components(separatedBy: "needs param 'ENV'").count == 2, "\(missing.stderr)")
    #expect(!missing.stderr.contains("deploy#"))
    let plan = try project.run("-n", "*", "ENV=x")
    #expect(plan.stdout.contains("targets: h, deploy, t\n"), "\(plan.stdout)\(plan.stderr)")
    let describe = try project.run("--describe", "t")
    #expect(!describe.stdout.contains("${{"), "\(describe.stdout)")
  }
}
