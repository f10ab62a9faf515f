import RunnerCache

extension CachingOperation {
  /// The recorded result of a task the last run's record vouches for and the store found up
  /// to date from it (`IncrementalStore.settled`); nil when it is to be judged in full.
  func settled(_ context: OperationContext) -> (any OperationResult)? {
    guard context.task.wholeTask == nil,
      let record = store.settled(
        context.task, workingDirectory: context.workingDirectory, dependencies: context.inputs.keys),
      let fingerprint = record.fingerprint, !uploadPending(fingerprint)
    else { return nil }
    return CachedResult(
      outputs: Dictionary(record.values, uniquingKeysWith: { $1 }),
      fingerprint: record.standIn(declaresOutputs: Fingerprint.declaresOutputs(context.task)),
      outputDigest: record.outputDigest, concluded: .upToDate)
  }
}
