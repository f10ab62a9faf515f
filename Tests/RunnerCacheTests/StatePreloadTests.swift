import Foundation
import Testing

@testable import RunnerCache

/// The state file read ahead, before the run's lock: used when it is still the file on disk,
/// read again when another runner replaced it in between.
@Suite struct StatePreloadTests {
  let directory: String

  init() throws {
    directory =
      FileManager.default.temporaryDirectory.appendingPathComponent("runner-preload-\(UUID().uuidString)")
      .path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  func writeState(fingerprint: String) throws {
    var state = BuildState()
    state.tasks["t"] = TaskRecord(
      fingerprint: fingerprint, operation: "o", directory: ".", environment: "e", dependencies: "d", sources: [],
      outputs: [], values: [], outputDigest: "od")
    try CacheFileSystem.writeAtomically(directory + "/state", state.encoded())
  }

  func store(_ preload: StatePreload) -> IncrementalStore {
    IncrementalStore.readAhead(preload)
    return IncrementalStore(directory: directory, settings: CacheSettings(), environment: [:], printWarnings: false)
  }

  @Test func aStateUnchangedSinceThePreloadIsUsed() throws {
    try writeState(fingerprint: "first")
    let preload = StatePreload(directory: directory)
    #expect(store(preload).record("t")?.fingerprint == "first")
  }

  @Test func aStateReplacedAfterThePreloadIsReadAgain() throws {
    try writeState(fingerprint: "first")
    let preload = StatePreload(directory: directory)
    _ = preload.wait()
    try writeState(fingerprint: "second")
    #expect(store(preload).record("t")?.fingerprint == "second")
  }

  @Test func aMissingStateIsEmptyAndACorruptOneWarns() throws {
    #expect(store(StatePreload(directory: directory)).state.tasks.isEmpty)
    try Data("runner-state 2\nT\tbroken\n".utf8).write(to: URL(fileURLWithPath: directory + "/state"))
    let corrupt = store(StatePreload(directory: directory))
    #expect(corrupt.state.tasks.isEmpty)
    #expect(corrupt.warnings.count == 1)
  }
}
