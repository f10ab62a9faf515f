import Foundation
import Testing

/// `includes:`: namespaces, directories, scopes, nesting, globs, and errors at their places.
@Suite struct IncludeTests {
  func project() throws -> TaskFileProject {
    let project = try TaskFileProject(
      """
      includes:
        api: services/api/tasks.yml
        web: { path: web/tasks.yml, optional: true }
      env: { WHO: root, SHARED: root }
      tasks:
        lint: echo "lint as $WHO"
        all: { deps: [api, api:db:migrate] }
      """)
    try project.write(
      "services/api/tasks.yml",
      """
      includes:
        db: db/tasks.yml
      env: { WHO: api }
      default: [build]
      tasks:
        build: { deps: [':lint', gen], run: 'echo "build as $WHO/$SHARED in $(basename $(pwd))"' }
        gen: 'echo gen'
        test: 'echo api test'
      """)
    try project.write(
      "services/api/db/tasks.yml",
      "tasks:\n  migrate: { deps: [seed], run: pwd }\n  seed: echo seed\n  test: echo db test\n")
    return project
  }

  @Test func includedTasksRunInTheirDirectoryWithTheirScope() throws {
    let project = try project()
    defer { project.remove() }
    let output = try project.run("all")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("lint           | lint as root"), "\(output.stdout)")
    #expect(output.stdout.contains("api:build      | build as api/root in api"), "\(output.stdout)")
    #expect(output.stdout.contains("api:db:migrate | \(project.directory.path)/services/api/db"), "\(output.stdout)")
    #expect(output.stdout.contains("▶ api:gen"))
    #expect(output.stdout.contains("▶ api:db:seed"))
  }

  @Test func patternsAndTheListSeeNamespaces() throws {
    let project = try project()
    defer { project.remove() }
    let plan = try project.run("-n", "*:test")
    #expect(plan.stdout.contains("targets: api:test\n"), "\(plan.stdout)")
    let deep = try project.run("-n", "**:test")
    #expect(deep.stdout.contains("targets: api:test, api:db:test\n"), "\(deep.stdout)")
    let list = try project.run("--list")
    #expect(list.stdout.contains("api:db:migrate"), "\(list.stdout)")
    let noDefault = try project.run("api:db")
    #expect(noDefault.status == 2)
    #expect(noDefault.stderr.contains("'api:db' is an include with no default task: name one of api:db:migrate"))
  }

  @Test func anIncludedFileRunsOnItsOwnAndColonNamesItsOwnTasks() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    try project.write("sub/tasks.yml", "tasks:\n  a: { deps: [':b'], run: echo a }\n  b: echo b\n")
    let output = try project.run("sub/tasks.yml", ":a")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("b | b"))
  }

  @Test func errorsPointAtTheIncludingLineOrTheIncludedFile() throws {
    let project = try TaskFileProject("includes:\n  api: api/tasks.yml\n  gone: missing/tasks.yml\ntasks:\n  a: echo\n")
    defer { project.remove() }
    try project.write("api/tasks.yml", "tasks:\n  build:\n    dpes: [x]\n")
    let output = try project.run("a")
    #expect(output.status == 2)
    #expect(
      output.stderr.contains("api/tasks.yml:3:5: error: unknown key 'dpes' in task 'build' (did you mean 'deps'?)"),
      "\(output.stderr)")
    #expect(
      output.stderr.contains("tasks.yml:3:9: error: included file 'missing/tasks.yml' not found"), "\(output.stderr)")
    try project.write("api/tasks.yml", "includes:\n  back: ../tasks.yml\ntasks:\n  build: echo\n")
    let cycle = try project.run("a")
    #expect(cycle.status == 2)
    #expect(cycle.stderr.contains("api/tasks.yml:2:9: error: include cycle: "), "\(cycle.stderr)")
    try project.write("tasks.yml", "includes:\n  api: api/tasks.yml\n  '*': '*/tasks.yml'\ntasks:\n  a: echo\n")
    try project.write("api/tasks.yml", "tasks:\n  build: echo\n")
    let twice = try project.run("a")
    #expect(twice.status == 2)
    #expect(
      twice.stderr.contains("tasks.yml:3:8: error: namespace 'api' is included twice (first at tasks.yml:2:8)"),
      "\(twice.stderr)")
  }

  @Test func theMonorepoExampleRunsEveryPackagesTests() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    let example = BinaryRunner.packageRoot.appendingPathComponent("examples/monorepo")
    try FileManager.default.removeItem(at: project.directory)
    try FileManager.default.copyItem(at: example, to: project.directory)
    let output = try project.run("*:test", "NODE_ENV=development")
    #expect(output.status == 0, "\(output.stderr)")
    for line in ["core: 1 test passed", "api: 3 tests passed", "web: 2 tests passed", "built for development"] {
      #expect(output.stdout.contains(line), "\(output.stdout)")
    }
    #expect(output.stdout.contains("7 task(s): 7 succeeded"))
  }

  /// `dir:` on an include: its tasks run there, relative to the including file.
  @Test func anIncludesDirIsWhereItsTasksRun() throws {
    let project = try TaskFileProject(
      """
      includes:
        tools: { path: tools/tasks.yml, dir: . }
        own: tools/tasks.yml
      tasks:
        both: { deps: ["tools:where", "own:where"] }
      """)
    defer { project.remove() }
    try project.write("tools/tasks.yml", "tasks:\n  where: pwd >> \"$RUNNER_TASK.txt\"\n")
    let output = try project.run("-j1", "both")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(project.read("tools:where.txt") == project.directory.path + "\n", "\(output.stdout)")
    #expect(project.read("tools/own:where.txt") == project.directory.path + "/tools\n", "\(output.stdout)")
  }

  /// A nested include's `dir:` is relative to the file that declares it, where that file is,
  /// though its own tasks run elsewhere (go-task's rule).
  @Test func aNestedIncludesDirIsRelativeToItsOwnFile() throws {
    let project = try TaskFileProject("includes:\n  svc: { path: svc/tasks.yml, dir: . }\n")
    defer { project.remove() }
    try project.write(
      "svc/tasks.yml", "includes:\n  lib: { path: ../lib/tasks.yml, dir: ../lib }\ntasks:\n  where: pwd\n")
    try project.write("lib/tasks.yml", "tasks:\n  where: pwd\n")
    let output = try project.run("-j1", "svc:where", "svc:lib:where")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("svc:where     | \(project.directory.path)\n"), "\(output.stdout)")
    #expect(output.stdout.contains("svc:lib:where | \(project.directory.path)/lib\n"), "\(output.stdout)")
  }

  /// Two services that include one library, to run in its directory with the same values: one
  /// set of library tasks with two names, run once (go-task's `run: once` across includes).
  @Test func aFileIncludedTwiceTheSameWayIsOneSetOfTasks() throws {
    let project = try TaskFileProject(
      """
      includes:
        a: svc-a/tasks.yml
        b: svc-b/tasks.yml
        other: { path: lib/tasks.yml, with: { mode: other } }
      tasks:
        all: { deps: [a:build, b:build, other:build] }
      """)
    defer { project.remove() }
    for service in ["svc-a", "svc-b"] {
      try project.write(
        "\(service)/tasks.yml",
        "includes:\n  lib: { path: ../lib/tasks.yml, dir: ../lib }\ntasks:\n  build: { deps: [lib:build], run: echo built }\n"
          + "  deploy: { deps: [lib:build], env: { V: '${{ deps.lib:build.outputs.v }}' }, run: 'echo \"v=$V\"' }\n")
    }
    try project.write(
      "lib/tasks.yml",
      "params: { mode: debug }\ntasks:\n  build: echo \"lib $mode in $(basename $PWD)\" >> ../log; echo v=7 >> \"$RUNNER_OUTPUT\"\n"
    )
    let output = try project.run("-j1", "all")
    #expect(output.status == 0, "\(output.stderr)")
    let log = project.read("log") ?? ""
    #expect(log.components(separatedBy: "lib debug in lib\n").count == 2, "\(log)")
    #expect(log.contains("lib other in lib\n"), "\(log)")
    let listed = try project.run("--list")
    #expect(listed.stdout.contains("a:lib:build (b:lib:build)"), "\(listed.stdout)")
    let alone = try project.run("b:lib:build")
    #expect(alone.status == 0 && alone.stdout.contains("a:lib:build"), "\(alone.stdout)\(alone.stderr)")
    // What reads the shared task's outputs by the second name reads them.
    let deploy = try project.run("b:deploy")
    #expect(deploy.status == 0 && deploy.stdout.contains("| v=7\n"), "\(deploy.stdout)\(deploy.stderr)")
    // The second name's params are the first's.
    let scoped = try project.run("b:lib:mode=fast", "b:lib:build")
    #expect(scoped.status == 0, "\(scoped.stderr)")
    #expect((project.read("log") ?? "").hasSuffix("lib fast in lib\n"), "\(project.read("log") ?? "")")
  }

  /// `~/` in an include's path is the home directory; an included file may hold no tasks yet
  /// (`tasks: {}` written out).
  @Test func aHomePathAndAnEmptyIncludedFile() throws {
    let project = try TaskFileProject(
      "includes:\n  mine: ~/mine.yml\n  empty: empty.yml\ntasks:\n  a: { deps: [mine:hello], run: echo a }\n")
    defer { project.remove() }
    try project.write("home/mine.yml", "tasks:\n  hello: echo hello from home\n")
    try project.write("empty.yml", "tasks: {}\n")
    let home = project.directory.appendingPathComponent("home").path
    let output = try project.run(["a"], environment: ["HOME": home])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("| hello from home\n"), "\(output.stdout)")
    // Without the key at all, the file is still an error: it is most likely a mistake.
    try project.write("empty.yml", "env: { A: b }\n")
    let missing = try project.run(["a"], environment: ["HOME": home])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("empty.yml:1:1: error: the task file defines no tasks"), "\(missing.stderr)")
  }

  /// An optional include that is not there: the tasks that need its tasks fail when they run,
  /// saying so; the others run.
  @Test func anAbsentOptionalIncludeFailsOnlyTheTasksThatNeedIt() throws {
    let project = try TaskFileProject(
      """
      includes:
        extra: { path: extra/tasks.yml, optional: true }
      tasks:
        build: { deps: [extra:setup], run: echo build }
        calls: { run: [{ task: extra:gen }] }
        given: { deps: [{ task: extra:setup, with: { mode: release } }], run: echo given }
        hello: echo hello
      """)
    defer { project.remove() }
    let hello = try project.run("hello")
    #expect(hello.status == 0 && hello.stdout.contains("hello | hello\n"), "\(hello.stdout)\(hello.stderr)")
    for target in ["build", "calls", "given"] {
      let output = try project.run(target)
      #expect(output.status == 1, "\(output.stdout)\(output.stderr)")
      #expect(
        output.stdout.contains("is a task of extra/tasks.yml, an optional include that is not there"),
        "\(output.stdout)")
    }
  }

  /// A task of the including file named like an include wins over the include's default task.
  @Test func aTaskNamedLikeAnIncludeShadowsItsDefault() throws {
    let project = try TaskFileProject(
      "includes:\n  docs: docs/tasks.yml\ntasks:\n  docs: echo own\n  all: { deps: [docs:build] }\n")
    defer { project.remove() }
    try project.write("docs/tasks.yml", "tasks:\n  default: echo included\n  build: echo build\n")
    let output = try project.run("docs", "all")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("docs       | own\n"), "\(output.stdout)")
    #expect(!output.stdout.contains("included"), "\(output.stdout)")
    #expect(try project.run("docs:default").stdout.contains("docs:default | included\n"))
  }

  /// `with:` gives an included file's params values: the same file twice is two sets of tasks;
  /// a value reads the including file's params; the command line still wins; a name the file
  /// does not declare and a value outside its choices are errors at their place.
  @Test func withGivesAnIncludedFileItsParams() throws {
    let project = try TaskFileProject(
      """
      params:
        stage: { default: blue }
      includes:
        staging: { path: deploy.yml, with: { target: staging, color: "${{ params.stage }}" } }
        prod: { path: deploy.yml, with: { target: prod } }
        plain: deploy.yml
      tasks:
        all: { deps: [staging:ship, prod:ship, plain:ship] }
      """)
    defer { project.remove() }
    try project.write(
      "deploy.yml",
      """
      params:
        target: { default: local, choices: [local, staging, prod] }
        color: { default: none }
      tasks:
        ship: echo "ship $target $color"
      """)
    let ran = try project.run("all", "--output", "grouped")
    #expect(ran.status == 0, "\(ran.stderr)")
    for line in ["staging:ship | ship staging blue", "prod:ship    | ship prod none", "plain:ship   | ship local none"]
    {
      #expect(ran.stdout.contains(line), "\(ran.stdout)")
    }
    let overridden = try project.run("all", "target=prod", "stage=green")
    #expect(overridden.stdout.contains("staging:ship | ship prod green"), "\(overridden.stdout)")

    try project.write("tasks.yml", "includes:\n  a: { path: deploy.yml, with: { traget: prod } }\ntasks: {}\n")
    let unknown = try project.run("--list")
    #expect(unknown.status == 2)
    #expect(
      unknown.stderr.contains(
        "tasks.yml:2:42: error: 'with' sets 'traget', which is not a param of deploy.yml (did you mean 'target'?)"),
      "\(unknown.stderr)")
    try project.write("tasks.yml", "includes:\n  b: { path: deploy.yml, with: { target: test } }\ntasks: {}\n")
    let outside = try project.run("--list")
    #expect(outside.status == 2)
    #expect(
      outside.stderr.contains("tasks.yml:2:42: error: 'test' is not a choice of param 'target'"), "\(outside.stderr)")
  }

  /// `NAMESPACE:NAME=value` sets the param of the file included there alone; `api:` is the
  /// include's default task; a namespace or a param nobody declares is a usage error.
  @Test func aNamespacedParamSetsOneIncludesValue() throws {
    let project = try TaskFileProject(
      """
      includes:
        a: { path: lib.yml, with: { who: a } }
        b: lib.yml
      tasks:
        all: { deps: [a:greet, b:greet] }
      """)
    defer { project.remove() }
    try project.write(
      "lib.yml", "params:\n  who: { default: lib }\ndefault: greet\ntasks:\n  greet: echo \"hi $who\"\n")
    let ran = try project.run("all", "b:who=zz", "--output", "grouped")
    #expect(ran.status == 0, "\(ran.stderr)")
    #expect(ran.stdout.contains("a:greet | hi a") && ran.stdout.contains("b:greet | hi zz"), "\(ran.stdout)")
    let trailing = try project.run("b:")
    #expect(trailing.stdout.contains("b:greet | hi lib"), "\(trailing.stdout)\(trailing.stderr)")
    let unknown = try project.run("c:who=x", "all")
    #expect(unknown.status == 2)
    #expect(unknown.stderr.contains("'c:who=…': no file is included as 'c'"), "\(unknown.stderr)")
    let undeclared = try project.run("a:how=x", "all")
    #expect(undeclared.status == 2)
    #expect(
      undeclared.stderr.contains(
        "unknown param 'how': lib.yml, included as 'a', does not declare it (did you mean 'who'?)"),
      "\(undeclared.stderr)")
  }

  /// A dependency's `with:` recomputes the defaults that read other params, but never a value
  /// the include's `with:` or the command line gave.
  @Test func aDependencysWithKeepsTheIncludesValues() throws {
    let project = try TaskFileProject(
      """
      includes:
        prod: { path: deploy.yml, with: { url: https://internal } }
      tasks:
        all: { deps: [{ task: "prod:push", with: { force: "yes" } }] }
      """)
    defer { project.remove() }
    try project.write(
      "deploy.yml",
      """
      params:
        target: { default: dev }
        url: { default: "https://${{ params.target }}" }
      tasks:
        push:
          params: { force: { default: "no" } }
          run: echo "push $url $force"
      """)
    let ran = try project.run("all")
    #expect(ran.stdout.contains("| push https://internal yes"), "\(ran.stdout)\(ran.stderr)")
    let scoped = try project.run("all", "prod:url=https://cli")
    #expect(scoped.stdout.contains("| push https://cli yes"), "\(scoped.stdout)\(scoped.stderr)")
  }
}
