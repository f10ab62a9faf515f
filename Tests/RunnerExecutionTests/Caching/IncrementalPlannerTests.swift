import Foundation
import Testing

@testable import RunnerCache
@testable import RunnerModel

/// The dry run's predictions: what would run, be up to date or be restored, and why.
@Suite struct IncrementalPlannerTests {
  static let yaml = """
    tasks:
      build:
        run: mkdir -p out && cat Sources/*.swift > out/app
        sources: ["Sources/*.swift"]
        outputs: [out/app]
      test:
        deps: [build]
        run: cat out/app > out/tested
        sources: [Tests/check.txt]
        outputs: [out/tested]
      lint:
        run: 'true'
    """

  func predictions(_ harness: RunHarness, _ settings: CacheSettings = CacheSettings()) throws -> [String:
    CachePrediction]
  {
    let graph = try TaskFileLoader().load(path: harness.path("tasks.yml"))
    let selection = try GraphSelection(graph: graph, targetNames: [], wholeFile: true)
    let store = IncrementalStore(
      directory: harness.stateDirectory, settings: settings,
      environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"], printWarnings: false)
    let result = IncrementalPlanner(selection: selection, store: store).predict()
    return Dictionary(uniqueKeysWithValues: result.map { (graph[$0.key].name, $0.value) })
  }

  @Test func predictionsSayWhy() async throws {
    let harness = try RunHarness(Self.yaml)
    try harness.write("Sources/main.swift", "print(1)\n")
    try harness.write("Tests/check.txt", "ok\n")
    #expect(try predictions(harness)["build"] == CachePrediction(.run, "no previous run"))
    #expect(try predictions(harness)["lint"] == CachePrediction(.always, "no sources"))
    _ = try await harness.runCached()
    #expect(try predictions(harness)["build"] == CachePrediction(.upToDate))
    #expect(try predictions(harness)["test"] == CachePrediction(.upToDate))
    try harness.write("Sources/main.swift", "print(2)\n")
    #expect(try predictions(harness)["build"] == CachePrediction(.run, "Sources/main.swift changed"))
    #expect(try predictions(harness)["test"] == CachePrediction(.run, "dependency 'build' will run"))
    try harness.write("Sources/main.swift", "print(1)\n")
    harness.remove("out")
    #expect(try predictions(harness)["build"] == CachePrediction(.restore, "out/app is missing"))
    #expect(try predictions(harness)["test"] == CachePrediction(.restore, "out/tested is missing"))
    try harness.write("tasks.yml", Self.yaml.replacingOccurrences(of: "> out/tested", with: "> out/tested && true"))
    let changed = try predictions(harness)["test"]
    #expect(changed == CachePrediction(.run, "command changed"), "\(String(describing: changed))")
    #expect(try predictions(harness, CacheSettings(force: true))["build"] == CachePrediction(.run, "--force"))
  }
}
