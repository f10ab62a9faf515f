import RunnerCache
import RunnerModel

extension TaskFileLoader {
  /// The loader a run uses: a `for: { files: }` lists files with the globs of `sources`.
  static func forRun(invocation: Invocation = Invocation()) -> TaskFileLoader {
    var loader = TaskFileLoader(invocation: invocation)
    loader.matchFiles = { patterns, directory in SourceGlob.expand(patterns, in: directory) }
    return loader
  }
}
