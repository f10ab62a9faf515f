import Foundation
import Testing

@testable import RunnerCache
@testable import RunnerModel

/// Up-to-date checks and the local cache, on real files and processes.
@Suite struct IncrementalRunTests {
  /// `a` (sources src/a/*) → `b` (depends on a, sources src/b/*); `c` independent.
  static let chain = """
    tasks:
      a:
        run: mkdir -p out && cat src/a/* > out/a.txt && echo a >> runs.log && echo "lines=$(wc -l < out/a.txt)" >> $RUNNER_OUTPUT
        sources: ["src/a/*"]
        outputs: [out/a.txt]
      b:
        deps: [a]
        env: { LINES: "${{ deps.a.outputs.lines }}" }
        run: cat out/a.txt src/b/* > out/b.txt && echo "b $LINES" >> runs.log && echo "b saw $LINES"
        sources: ["src/b/*"]
        outputs: [out/b.txt]
      c:
        run: echo c >> runs.log
        sources: ["src/c/**"]
    """

  func makeChain() throws -> RunHarness {
    let harness = try RunHarness(Self.chain)
    try harness.write("src/a/one.txt", "1\n")
    try harness.write("src/b/two.txt", "2\n")
    try harness.write("src/c/deep/three.txt", "3\n")
    return harness
  }

  @Test func secondRunIsUpToDate() async throws {
    let harness = try makeChain()
    let first = try await harness.runCached()
    #expect(first.ran == ["a", "b", "c"])
    #expect(first.summary.exitCode == 0)
    let second = try await harness.runCached()
    #expect(second.ran == [])
    #expect(second.outcome("a") == "up to date")
    #expect(second.outcome("b") == "up to date")
    #expect(harness.file("runs.log")?.split(separator: "\n").count == 3)
  }

  @Test func sourceChangeRerunsTheTaskAndDependentsWhoseInputsChanged() async throws {
    let harness = try makeChain()
    _ = try await harness.runCached()
    try harness.write("src/a/one.txt", "1\nmore\n")
    let run = try await harness.runCached()
    #expect(run.ran == ["a", "b"])
    #expect(harness.file("out/b.txt") == "1\nmore\n2\n")
    try harness.write("src/c/deep/three.txt", "changed\n")
    #expect(try await harness.runCached().ran == ["c"])
    try harness.write("src/b/new.txt", "new\n")
    #expect(try await harness.runCached().ran == ["b"])
  }

  /// A dependency that always runs and rewrites its dependent's sources. The dependent's
  /// sources are checked ahead on another thread while `gen` sleeps; that check must not be
  /// used once `gen` has run, or `build` would look up to date with the old content.
  @Test func sourcesWrittenByADependencyAreSeenByTheDependent() async throws {
    let harness = try RunHarness(
      """
      tasks:
        gen:
          run: sleep 0.3 && mkdir -p gen && cat input.txt > gen/made.c
        build:
          deps: [gen]
          run: cat gen/*.c > built.txt
          sources: ["gen/*.c"]
          outputs: [built.txt]
        other:
          run: "true"
          sources: [other.txt]
      """)
    try harness.write("input.txt", "one\n")
    try harness.write("other.txt", "other\n")
    #expect(try await harness.runCached().ran == ["build", "gen", "other"])
    #expect(try await harness.runCached().ran == ["gen"])
    try harness.write("input.txt", "two\n")
    #expect(try await harness.runCached().ran == ["build", "gen"])
    #expect(harness.file("built.txt") == "two\n")
  }

  @Test func commandChangeRerunsOnlyThatTaskAndItsDependents() async throws {
    let harness = try makeChain()
    _ = try await harness.runCached()
    try harness.write("tasks.yml", Self.chain.replacingOccurrences(of: "echo c >>", with: "echo C >>"))
    #expect(try await harness.runCached().ran == ["c"])
    try harness.write(
      "tasks.yml", Self.chain.replacingOccurrences(of: "> out/a.txt", with: "> out/a.txt && true"))
    // a's key changed but it wrote the same out/a.txt and values: b, which reads only what a
    // hands on, stays up to date (early cut-off).
    #expect(try await harness.runCached().ran == ["a"])
  }

  /// Of runner's environment only PATH counts unless the file says otherwise: a variable new or
  /// changed in the shell (`FOO=1 runner`) re-runs nothing.
  @Test func onlyPathCountsOfTheInheritedEnvironment() async throws {
    let harness = try makeChain()
    _ = try await harness.runCached(environment: ["MODE": "fast"])
    #expect(try await harness.runCached(environment: ["MODE": "slow", "FOO": "1"]).ran == [])
    #expect(try await harness.runCached(environment: ["PATH": "/usr/bin:/bin:/opt/elsewhere"]).ran == ["a", "b", "c"])
  }

  /// `key_env` at the top makes an inherited variable count for every task; on a task, for that
  /// task (and, through its fingerprint, its dependents). Unset differs from empty.
  @Test func keyEnvMakesInheritedVariablesCount() async throws {
    let harness = try RunHarness(
      """
      key_env: [MODE]
      tasks:
        a:
          run: echo a >> runs.log
          sources: [a.txt]
        b:
          deps: [a]
          run: echo b >> runs.log
          sources: [b.txt]
        c:
          key_env: [CC]
          run: echo c >> runs.log
          sources: [c.txt]
      """)
    for name in ["a.txt", "b.txt", "c.txt"] { try harness.write(name, name) }
    #expect(try await harness.runCached(environment: ["MODE": "fast", "CC": "gcc"]).ran == ["a", "b", "c"])
    #expect(try await harness.runCached(environment: ["MODE": "fast", "CC": "gcc", "OTHER": "1"]).ran == [])
    #expect(try await harness.runCached(environment: ["MODE": "fast", "CC": "clang"]).ran == ["c"])
    #expect(try await harness.runCached(environment: ["MODE": "slow", "CC": "clang"]).ran == ["a", "b", "c"])
    #expect(try await harness.runCached(environment: ["MODE": "", "CC": "clang"]).ran == ["a", "b", "c"])
    #expect(try await harness.runCached(environment: ["CC": "clang"]).ran == ["a", "b", "c"])
    #expect(try await harness.runCached(environment: ["CC": "clang"]).ran == [])
  }

  /// `key_env` takes names: anything else is an error at its place.
  @Test func keyEnvRejectsWhatIsNotAName() throws {
    let harness = try RunHarness("tasks: {a: 'true'}")
    try harness.write("tasks.yml", "tasks:\n  a:\n    key_env: [CC, \"A=B\"]\n    run: \"true\"\n")
    let error = #expect(throws: DiagnosticList.self) { try TaskFileLoader().load(path: harness.path("tasks.yml")) }
    #expect(
      error?.diagnostics.map(\.headline).joined().contains("tasks.yml:3:19: error: environment variable name 'A=B'")
        == true)
  }

  /// Early cut-off: a dependency that declares outputs stands in its dependents' keys by what
  /// it hands on, so a re-run that writes the same bytes leaves them up to date; one that
  /// declares none stands in by its key, so its dependents run after it.
  @Test func aDependencyThatWritesTheSameOutputsLeavesItsDependentsUpToDate() async throws {
    let harness = try RunHarness(
      """
      tasks:
        gen:
          run: grep -v '^#' src.txt > gen.out
          sources: [src.txt]
          outputs: [gen.out]
        use:
          deps: [gen]
          run: cat gen.out > use.out
          sources: [use.txt]
          outputs: [use.out]
        side:
          run: grep -v '^#' src.txt > side.out
          sources: [src.txt]
        after:
          deps: [side]
          run: cat side.out > after.out
          sources: [use.txt]
      """)
    try harness.write("src.txt", "# a comment\nvalue\n")
    try harness.write("use.txt", "u\n")
    #expect(try await harness.runCached().ran == ["after", "gen", "side", "use"])
    try harness.write("src.txt", "# another comment\nvalue\n")
    #expect(try await harness.runCached().ran == ["after", "gen", "side"], "gen wrote the same gen.out")
    try harness.write("src.txt", "# another comment\nother value\n")
    #expect(try await harness.runCached().ran == ["after", "gen", "side", "use"])
    #expect(harness.file("use.out") == "other value\n")
  }

  /// Past a cut-off, a change further up still arrives: `use` reads a header `gen` writes, past
  /// `lib`, whose own output does not change.
  @Test func aChangeBehindADependencyWithTheSameOutputsStillArrives() async throws {
    let harness = try RunHarness(
      """
      tasks:
        gen:
          run: cp api.h.in api.h && cp api.c.in api.c
          sources: [api.h.in, api.c.in]
          outputs: [api.h, api.c]
        lib:
          deps: [gen]
          run: cat api.c > lib.a
          sources: [lib.txt]
          outputs: [lib.a]
        use:
          deps: [lib]
          run: cat api.h > use.out
          sources: [use.txt]
          outputs: [use.out]
      """)
    for name in ["api.c.in", "lib.txt", "use.txt"] { try harness.write(name, name) }
    try harness.write("api.h.in", "#define A 1\n")
    #expect(try await harness.runCached().ran == ["gen", "lib", "use"])
    try harness.write("api.h.in", "#define A 2\n")
    #expect(try await harness.runCached().ran == ["gen", "lib", "use"], "lib.a is the same; api.h is not")
    #expect(harness.file("use.out") == "#define A 2\n")
  }

  /// A group hands on what its dependencies did: a change behind it reaches its dependents.
  @Test func aChangeBehindAGroupReachesItsDependents() async throws {
    let harness = try RunHarness(
      """
      tasks:
        build:
          run: cp src.txt build.out
          sources: [src.txt]
          outputs: [build.out]
        all:
          deps: [build]
        deploy:
          deps: [all]
          run: cat build.out > deployed.txt
          sources: [deploy.txt]
          outputs: [deployed.txt]
      """)
    try harness.write("src.txt", "one\n")
    try harness.write("deploy.txt", "d\n")
    #expect(try await harness.runCached().ran == ["all", "build", "deploy"])
    #expect(try await harness.runCached().ran == ["all"], "a group always finishes, and hands on the same")
    try harness.write("src.txt", "two\n")
    #expect(try await harness.runCached().ran == ["all", "build", "deploy"])
    #expect(harness.file("deployed.txt") == "two\n")
  }

  /// A task that always runs (no sources) but declares outputs hands them on: new content
  /// re-runs its dependents, the same content does not.
  @Test func aTaskWithoutSourcesHandsOnItsDeclaredOutputs() async throws {
    let harness = try RunHarness(
      """
      tasks:
        fetch:
          run: cp remote.txt data.json
          outputs: [data.json]
        report:
          deps: [fetch]
          run: cat data.json > report.txt
          sources: [report.in]
          outputs: [report.txt]
      """)
    try harness.write("remote.txt", "v1\n")
    try harness.write("report.in", "r\n")
    #expect(try await harness.runCached().ran == ["fetch", "report"])
    #expect(try await harness.runCached().ran == ["fetch"])
    try harness.write("remote.txt", "v2\n")
    #expect(try await harness.runCached().ran == ["fetch", "report"])
    #expect(harness.file("report.txt") == "v2\n")
  }

  @Test func dependencyOutputChangeReruns() async throws {
    let harness = try RunHarness(
      """
      tasks:
        version:
          run: echo "v=$(cat version.txt)" >> $RUNNER_OUTPUT
        use:
          deps: [version]
          env: { V: "${{ deps.version.outputs.v }}" }
          run: echo "$V" > used.txt
          sources: [used-input.txt]
          outputs: [used.txt]
      """)
    try harness.write("version.txt", "1")
    try harness.write("used-input.txt", "x")
    #expect(try await harness.runCached().ran == ["use", "version"])
    #expect(try await harness.runCached().ran == ["version"])
    try harness.write("version.txt", "2")
    #expect(try await harness.runCached().ran == ["use", "version"])
    #expect(harness.file("used.txt") == "2\n")
  }

  @Test func deletedOutputsAreRestoredWithValuesAndLog() async throws {
    let harness = try makeChain()
    _ = try await harness.runCached()
    harness.remove("out")
    let run = try await harness.runCached()
    #expect(run.ran == [])
    #expect(run.outcome("a") == "restored from cache")
    #expect(run.outcome("b") == "restored from cache")
    #expect(run.outcome("c") == "up to date")
    #expect(harness.file("out/b.txt") == "1\n2\n")
    #expect(run.lines(of: "b") == ["b saw 1"])
    #expect(harness.file("runs.log")?.split(separator: "\n").count == 3)
    // The restored value reached b's fingerprint unchanged: next run is up to date.
    #expect(try await harness.runCached().ran == [])
  }

  @Test func noCacheRunsInsteadOfRestoring() async throws {
    let harness = try makeChain()
    _ = try await harness.runCached(settings: CacheSettings(useCache: false))
    #expect(harness.cacheEntries().isEmpty)
    harness.remove("out")
    #expect(try await harness.runCached(settings: CacheSettings(useCache: false)).ran == ["a", "b"])
  }

  @Test func forceRunsEverything() async throws {
    let harness = try makeChain()
    _ = try await harness.runCached()
    #expect(try await harness.runCached(settings: CacheSettings(force: true)).ran == ["a", "b", "c"])
    #expect(try await harness.runCached().ran == [])
  }

  /// Tasks that always run (and a group) but hand on what they did last time leave the state
  /// file untouched: no 10 MB rewrite in a large project's run in which nothing changed.
  @Test func aRunThatRecordsNothingNewLeavesTheStateFileAlone() async throws {
    let harness = try RunHarness(
      """
      tasks:
        values:
          run: echo "k=v" >> $RUNNER_OUTPUT
        all:
          deps: [values]
      """)
    _ = try await harness.runCached()
    let before = try #require(CacheFileSystem.status(harness.stateDirectory + "/state")?.stamp)
    let again = try await harness.runCached()
    #expect(again.summary.succeeded)
    #expect(CacheFileSystem.status(harness.stateDirectory + "/state")?.stamp == before)
    try harness.write("tasks.yml", "tasks:\n  values:\n    run: echo \"k=w\" >> $RUNNER_OUTPUT\n")
    _ = try await harness.runCached()
    #expect(CacheFileSystem.status(harness.stateDirectory + "/state")?.stamp != before, "new values are recorded")
  }

  @Test func failureForgetsTheRecord() async throws {
    let harness = try RunHarness(
      """
      tasks:
        t:
          run: test -f ok && echo done > out.txt
          sources: [input.txt]
          outputs: [out.txt]
      """)
    try harness.write("input.txt", "x")
    try harness.write("ok", "")
    #expect(try await harness.runCached().ran == ["t"])
    harness.remove("ok")
    try harness.write("input.txt", "y")
    #expect(try await harness.runCached().outcome("t") == "failed")
    try harness.write("input.txt", "x")
    // Back to the first fingerprint: its cache entry is sound, so it is restored.
    #expect(try await harness.runCached().outcome("t") == "restored from cache")
  }
}
