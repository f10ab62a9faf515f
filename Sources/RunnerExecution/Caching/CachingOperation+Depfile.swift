import RunnerBasics
import RunnerCache
import RunnerEvents

extension CachingOperation {
  /// The key a run of the task is recorded and cached under: for a task with a `depfile`, the
  /// key it ran under with the files the depfile names now (hashed now), as ninja reads a
  /// depfile after the command; otherwise `fingerprint` as it is.
  ///
  /// - Throws: a failure of the task when the command left no depfile, or one runner cannot
  ///   read: a task whose inputs are unknown must not be recorded as up to date.
  func discovering(_ fingerprint: Fingerprint, _ context: OperationContext) throws(TaskFailure) -> Fingerprint {
    guard let depfile = context.task.depfile else { return fingerprint }
    let path = FilePath.resolve(depfile, in: context.workingDirectory)
    let bytes: [UInt8]
    do {
      bytes = try store.disk.files.read(path)
    } catch {
      throw .message("its depfile '\(depfile)' cannot be read: \(error)")
    }
    switch Depfile.prerequisites(bytes) {
    case .failure(let problem):
      throw .message("its depfile '\(depfile)' is not a Makefile-syntax dependency file: \(problem)")
    case .success(let paths):
      let files = Fingerprint.hashFiles(
        paths, in: context.workingDirectory, previous: fingerprint.discovered ?? [], disk: store.disk)
      return fingerprint.discovering(files, task: context.task)
    }
  }
}
