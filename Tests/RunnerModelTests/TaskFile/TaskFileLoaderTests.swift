import Testing

@testable import RunnerModel

@Suite struct TaskFileLoaderTests {
  @Test func readsTheDocumentedExample() throws {
    let graph = try loadGraph(
      """
      concurrency: 4
      fail_fast: true
      default: [build]
      env:
        CC: clang
      tasks:
        version:
          desc: Work out the version
          run: git describe --tags
        build:
          deps: [version]
          run:
            - swift build -c release
            - strip .build/release/runner
          env: { VERSION: "${{ deps.version.outputs.tag }}" }
          dir: packages/core
        lint: swift format lint -r Sources
        ci:
          deps: [lint, build]
      """)
    #expect(graph.file.concurrency == 4)
    #expect(graph.file.defaultTargets.map(\.name) == ["build"])
    #expect(graph.tasks.map(\.name) == ["version", "build", "lint", "ci"])
    let build = graph[1]
    guard case .shell(let commands) = build.action else { Issue.record("build is not a shell task"); return }
    #expect(commands.map(\.text) == ["swift build -c release", "strip .build/release/runner"])
    #expect(build.environment[0].value.references.map(\.task) == ["version"])
    #expect(build.directory == "packages/core")
    if case .group = graph[3].action {} else { Issue.record("ci is not a group") }
    if case .shell = graph[2].action {} else { Issue.record("short form is not a shell task") }
  }

  @Test func reservedKeysAreKept() throws {
    let graph = try loadGraph(
      """
      tasks:
        db:
          run: start-db
          priority: high
          timeout: 1m30s
          retries: 2
          sources: ["Sources/**/*.swift"]
          outputs: out/app
          wait_for: [{ tcp: "localhost:5432", timeout: 5s }, { file: ready }]
          resources: [database]
      """)
    let task = graph[0]
    #expect(task.priority == 100)
    #expect(task.timeout == .seconds(90))
    #expect(task.retries == 2)
    #expect(task.sources == ["Sources/**/*.swift"])
    #expect(task.outputs == ["out/app"])
    #expect(task.waitFor.map(\.condition) == [.tcp(host: "localhost", port: 5432), .file("ready")])
    #expect(task.waitFor[0].timeout == .seconds(5))
    #expect(task.waitFor[1].timeout == .seconds(60))
    #expect(task.resources == ["database"])
  }

  @Test(arguments: [
    ("tasks:\n  a: {run: x, rnu: y}\n", "tasks.yml:2:15: error: unknown key 'rnu' in task 'a' (did you mean 'run'?)"),
    (
      "tasks:\n  build:\n    deps: {a: b}\n",
      "tasks.yml:3:11: error: 'deps' of task 'build' must be a list of task names, found a mapping"
    ),
    (
      "tasks:\n  a: [x, y]\n",
      "tasks.yml:2:6: error: task 'a' is a list; write 'run: [...]' for commands or 'deps: [...]' for dependencies"
    ),
    (
      "tasks:\n  a: {run: x, image: [grayscale]}\n",
      "tasks.yml:2:22: error: task 'a' has both 'run' and 'image'; a task has one operation"
    ),
    (
      "tasks:\n  build:\n    deps: [biuld]\n",
      "tasks.yml:3:12: error: task 'build' depends on 'biuld', which is not defined (did you mean 'build'?)"
    ),
    (
      "tasks:\n  a b: x\n",
      "tasks.yml:2:3: error: invalid task name 'a b': ' ' is not allowed (use letters, digits, '_', '-', '.' and ':')"
    ),
    (
      "concurrency: 0\ntasks:\n  a: x\n",
      "tasks.yml:1:14: error: 'concurrency' (a number or \"auto\") must be between 1 and 100000, found 0"
    ),
    (
      "tasks:\n  a: echo ${{ deps.b.outputs.c }}\n",
      "tasks.yml:2:6: error: '${{ }}' expressions may appear only in 'env' values; found in 'run' of task 'a'"
    ),
    (
      "tasks:\n  b: x\n  a: {env: {X: \"${{ deps.b.outputs.c }}\"}, run: y}\n",
      "tasks.yml:3:16: error: task 'a' reads outputs of 'b', which is not one of its direct dependencies (add it to 'deps')"
    ),
    (
      "tasks:\n  a: {timeout: soon, run: x}\n",
      "tasks.yml:2:16: error: 'timeout' of task 'a' must be a duration such as 90s, 5m or 250ms (0 for no limit), found 'soon'"
    ),
    (
      "tasks:\n  a: {priority: urgent, run: x}\n",
      "tasks.yml:2:17: error: 'priority' of task 'a' must be high, normal, low or a whole number from -1000 to 1000, found 'urgent'"
    ),
    ("tasks:\n", "tasks.yml:1:1: error: the task file defines no tasks (add a 'tasks:' mapping)"),
    (
      "version: 2\ntasks:\n  a: x\n",
      "tasks.yml:1:10: error: 'version' must be 1 (the only format version so far), found '2' (go-task's Taskfile version: runner's own format is 1)"
    ),
  ])
  func schemaErrorsArePrecise(text: String, expected: String) {
    #expect(loadError(text) == expected)
  }

  @Test func everySchemaErrorIsReportedAtOnce() {
    let errors = loadErrors("tasks:\n  a: {rnu: x}\n  b: {deps: {}}\n  c: {retries: many}\n")
    #expect(errors.count == 3)
  }

  @Test func emptyFileIsAnError() {
    #expect(loadError("") == "tasks.yml:1:1: error: the task file is empty")
  }

  @Test func taskNamesMayUseAnyScriptButNotBeTooLong() throws {
    let graph = try loadGraph("tasks:\n  построить: x\n  構築.v2:ci-1: x\n")
    #expect(graph.tasks.map(\.name) == ["построить", "構築.v2:ci-1"])
    let long = String(repeating: "a", count: 201)
    #expect(loadError("tasks:\n  \(long): x\n").contains("longer than 200 characters"))
  }

  @Test func expressionsParse() throws {
    let template = try Template.parse("v=${{ deps.build.linux.outputs.tag }}-${{deps.a.outputs.b}}")
    #expect(template.references.map(\.task) == ["build.linux", "a"])
    #expect(template.render { task, key in "\(task)/\(key)" } == "v=build.linux/tag-a/b")
    #expect(throws: TaskFileError.self) { try Template.parse("${{ env.HOME }}") }
    #expect(throws: TaskFileError.self) { try Template.parse("${{ deps.a.outputs.b ") }
  }

  @Test(arguments: [
    ("90s", 90_000), ("5m", 300_000), ("250ms", 250), ("1h30m", 5_400_000), ("1.5", 1500), ("2.5s", 2500),
  ])
  func durations(text: String, milliseconds: Int64) {
    #expect(SchemaReader.parseDuration(text) == .milliseconds(milliseconds))
  }

  @Test func badDurationsAreRejected() {
    for text in ["", "s", "5x", "-1s", "1e400"] { #expect(SchemaReader.parseDuration(text) == nil, "\(text)") }
  }

  @Test func suggestionsFindTypos() {
    #expect(Suggestion.closest(to: "biuld", in: ["build", "test"]) == "build")
    #expect(Suggestion.closest(to: "zzzzzz", in: ["build", "test"]) == nil)
  }
}
