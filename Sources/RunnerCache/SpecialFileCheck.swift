import Glibc
import RunnerBasics
import RunnerModel

/// `sources` and `outputs` that name a FIFO, a device or a socket outright: a run refuses them
/// before it starts (exit 2), where a glob passes over them. Hashing one could block for ever
/// (a FIFO without a writer) or never end (`/dev/zero`).
package enum SpecialFileCheck {
  /// One error per such path among the selected tasks, at the task's definition.
  package static func problems(in selection: GraphSelection) -> [Diagnostic] {
    let graph = selection.graph
    var problems: [Diagnostic] = []
    for index in selection.members {
      let task = graph[index]
      guard !task.sources.isEmpty || !task.outputs.isEmpty else { continue }
      let base = graph.file.directory
      let directory = task.directory.map { FilePath.resolve($0, in: base) } ?? base
      for (key, patterns) in [("sources", task.sources), ("outputs", task.outputs)] {
        for pattern in patterns where !pattern.hasPrefix("!") && !pattern.contains(where: { "*?[{".contains($0) }) {
          let full = FilePath.resolve(pattern, in: directory)
          var info = stat()
          guard stat(full, &info) == 0 else { continue }
          let type = info.st_mode & S_IFMT
          guard type != S_IFREG, type != S_IFDIR else { continue }
          problems.append(
            Diagnostic(
              .error,
              "'\(pattern)' in the '\(key)' of task '\(task.name)' is \(CacheFileSystem.kind(of: info.st_mode)), "
                + "not a regular file or a directory (reading it could block for ever or never end)",
              at: task.location))
        }
      }
    }
    return problems
  }
}
