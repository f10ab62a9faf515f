import Foundation
import Testing

/// Params, `with:`, the command line's `NAME=value` and `-- ARGS`, `${NAME}` in `env`.
@Suite struct ParamsAndArgumentsTests {
  static let tasks = """
    params:
      mode: { default: debug, choices: [debug, release], desc: Build mode }
    tasks:
      build:
        run: 'echo "build in $mode mode: $OUT"'
        env: { OUT: "out/${{ params.mode }}" }
      deploy:
        params:
          target: { required: true, choices: [staging, prod], desc: Where to deploy }
        deps: [{ task: build, with: { mode: release } }, build]
        run: 'echo "deploy to $target with $# args: $*"'
      echo:
        run: 'printf "%s|" "$@"; echo'
    """

  @Test func commandLineParamsReachTheTargetAndTheFile() throws {
    let project = try TaskFileProject(Self.tasks)
    defer { project.remove() }
    let output = try project.run("deploy", "target=prod", "--", "--verbose", "a b")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("build[mode=release] | build in release mode: out/release"))
    #expect(output.stdout.contains("build               | build in debug mode: out/debug"))
    #expect(output.stdout.contains("deploy              | deploy to prod with 2 args: --verbose a b"))
    let release = try project.run("build", "mode=release")
    #expect(release.stdout.contains("build | build in release mode: out/release"), "\(release.stderr)")
  }

  @Test func argumentsAreNeverReparsedByAShell() throws {
    let project = try TaskFileProject(Self.tasks)
    defer { project.remove() }
    let output = try project.run("echo", "--", "$(touch pwned)", "a;b", "*")
    #expect(output.stdout.contains("echo | $(touch pwned)|a;b|*|"), "\(output.stderr)")
    #expect(project.read("pwned") == nil)
  }

  @Test func badParamsAreUsageErrorsWithASuggestion() throws {
    let project = try TaskFileProject(Self.tasks)
    defer { project.remove() }
    let missing = try project.run("deploy")
    #expect(missing.status == 2)
    #expect(
      missing.stderr.contains(
        "tasks.yml:9:7: error: task 'deploy' needs param 'target' (one of: staging, prod): runner deploy target=VALUE (Where to deploy)"
      ))
    let choice = try project.run("deploy", "target=prod", "mode=relase")
    #expect(choice.status == 2)
    #expect(
      choice.stderr.contains(
        "error: 'relase' is not a choice of param 'mode' (debug, release) (did you mean 'release'?)"))
    let unknown = try project.run("deploy", "traget=prod")
    #expect(unknown.status == 2)
    #expect(
      unknown.stderr.contains(
        "unknown param 'traget': neither the task file nor 'deploy' declares it (did you mean 'target'?)"))
  }

  @Test func requiredParamsAreAskedForOnlyByARun() throws {
    let project = try TaskFileProject(
      """
      default: [lnit]
      tasks:
        deploy: { params: { ENV: { required: true, choices: [staging, prod] } }, run: 'echo "deploy $ENV"' }
        ship:
          params: { ENV: { required: true } }
          deps: [{ task: deploy, with: { ENV: "${{ params.ENV }}" } }]
        lint: echo lint
      """)
    defer { project.remove() }
    let list = try project.run("--list")
    #expect(list.status == 0, "\(list.stderr)")
    #expect(list.stdout.contains("ENV=… (required: staging|prod)"), "\(list.stdout)")
    #expect(try project.run("--graph", "tree", "deploy").status == 0)
    #expect(try project.run("lint").status == 0)
    let missing = try project.run("ship")
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("error: task 'ship' needs param 'ENV': runner ship ENV=VALUE"), "\(missing.stderr)")
    #expect(missing.stderr.contains("note: 'ship' depends on it here without a value for it"), "\(missing.stderr)")
    let ship = try project.run("ship", "ENV=prod")
    #expect(ship.stdout.contains("deploy[ENV=prod] | deploy prod"), "\(ship.stdout)\(ship.stderr)")
  }

  @Test func mistakesGetTheRightHint() throws {
    let project = try TaskFileProject(Self.tasks + "\n  test: { matrix: { go: ['1.22', '1.23'] }, run: echo }\n")
    defer { project.remove() }
    let bare = try project.run("deploy", "prod")
    #expect(bare.stderr.contains("no task named 'prod' (did you mean 'target=prod'?)"), "\(bare.stderr)")
    let axis = try project.run("test", "go=1.23")
    #expect(axis.stderr.contains("'go' is a matrix axis: run one combination as 'test[go=1.23]'"), "\(axis.stderr)")
    #expect(try project.run("test[go=1.23]").status == 0)
    try project.write("pkg/tasks.yml", "tasks:\n  build: { deps: [':setup'], run: echo }\n")
    let alone = try project.run("pkg/tasks.yml", "build")
    #expect(alone.stderr.contains("note: ':name' names a task of the root file"), "\(alone.stderr)")
  }

  @Test func withValuesAreCheckedAtTheirLine() throws {
    let project = try TaskFileProject(
      "tasks:\n  a: {params: {n: {choices: ['1', '2']}}, run: echo}\n  b: {deps: [{task: a, with: {n: '3'}}, {task: a, with: {m: x}}]}\n"
    )
    defer { project.remove() }
    let output = try project.run("b")
    #expect(output.status == 2)
    #expect(
      output.stderr.contains("tasks.yml:3:34: error: '3' is not a choice of param 'n' (1, 2)"), "\(output.stderr)")
    #expect(output.stderr.contains("tasks.yml:3:61: error: task 'a' has no param 'm'"))
  }

  @Test func sameValuesAreOneNodeAndTheGraphShowsEach() throws {
    let project = try TaskFileProject(
      """
      tasks:
        build: {params: {mode: debug}, run: echo $mode}
        a: {deps: [{task: build, with: {mode: release}}]}
        b: {deps: [{task: build, with: {mode: release}}, build]}
      """)
    defer { project.remove() }
    let plan = try project.run("-n", "a", "b")
    #expect(plan.stdout.contains("3 task(s)") || plan.stdout.contains("4 task(s)"), "\(plan.stdout)")
    let json = try project.run("--graph", "json", "a", "b")
    #expect(json.stdout.components(separatedBy: "\"build[mode=release]\"").count >= 2)
    let run = try project.run("a", "b")
    #expect(run.stdout.components(separatedBy: "| release").count == 2, "\(run.stdout)")
  }

  @Test func envValuesReadOtherVariables() throws {
    let project = try TaskFileProject(
      """
      env:
        KUBE_DIR: ${HOME_BASE}/kube
        LITERAL: $${NOT_EXPANDED} and $$HOME
      tasks:
        a:
          env: { TALOS_DIR: "${KUBE_DIR}/talos", EMPTY: ~ }
          run: 'echo "$TALOS_DIR|$LITERAL|[$EMPTY]"'
      """)
    defer { project.remove() }
    let output = try project.run("a", environment: ["HOME_BASE": "/srv"])
    #expect(
      output.stdout.contains("a | /srv/kube/talos|${NOT_EXPANDED} and $$HOME|[]"), "\(output.stdout)\(output.stderr)")
  }

  /// A `sh:` default runs with the params before it in its environment; a task's default may
  /// read its params before it even when a required one has no value (the file still loads);
  /// a POSIX shell's `$0` is the task's name, with or without words after `--`.
  @Test func computedDefaultsReadTheParamsBeforeThem() throws {
    let project = try TaskFileProject(
      """
      params:
        name: { default: "it's" }
        greeting: { default: { sh: 'echo "hello $name"' } }
      tasks:
        greet: 'echo "$greeting|$0"'
        pair:
          params:
            first: { required: true }
            second: { default: "${{ params.first }}-2" }
          run: echo "$second"
      """)
    defer { project.remove() }
    let plain = try project.run("greet")
    #expect(plain.stdout.contains("greet | hello it's|greet"), "\(plain.stdout)\(plain.stderr)")
    let set = try project.run("greet", "name=you")
    #expect(set.stdout.contains("greet | hello you|greet"), "\(set.stdout)\(set.stderr)")
    let pair = try project.run("pair", "first=1")
    #expect(pair.stdout.contains("pair | 1-2"), "\(pair.stdout)\(pair.stderr)")
  }
}
