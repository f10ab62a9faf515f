import Testing

@testable import RunnerCache
@testable import RunnerExecution

/// What a finished task hands its dependents' keys: a command's result takes a shorter path
/// than other results (no protocol casts, and no hashing when it has no outputs). The digest
/// must be the one the general path gives, or every key would change with the path taken.
@Suite struct ContributionTests {
  /// Any result that provides outputs and is not a command's: it takes the general path.
  struct OtherResult: OutputProviding {
    var outputs: [String: String]
  }

  @Test func aCommandWithNoOutputsContributesWhatAnyResultWithNoneDoes() {
    let command = Fingerprint.contribution(of: ShellResult(outputs: [:]), name: "a")
    let other = Fingerprint.contribution(of: OtherResult(outputs: [:]), name: "a")
    #expect(command.outputDigest == other.outputDigest)
    #expect(command.outputDigest == Fingerprint.outputDigest(values: [:], files: [], pixels: nil))
    #expect(command.fingerprint == nil && command.name == "a")
  }

  @Test func aCommandsOutputsCountAsAnyResultsDo() {
    let values = ["version": "1.2", "path": "out/app"]
    let command = Fingerprint.contribution(of: ShellResult(outputs: values), name: "b")
    let other = Fingerprint.contribution(of: OtherResult(outputs: values), name: "b")
    #expect(command.outputDigest == other.outputDigest)
    let changed = Fingerprint.contribution(of: ShellResult(outputs: ["version": "1.3", "path": "out/app"]), name: "b")
    #expect(changed.outputDigest != command.outputDigest)
    let none = Fingerprint.contribution(of: ShellResult(outputs: [:]), name: "b")
    #expect(none.outputDigest != command.outputDigest)
  }
}
