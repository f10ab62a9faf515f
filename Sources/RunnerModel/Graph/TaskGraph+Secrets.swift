import RunnerBasics

extension TaskGraph {
  /// The variables `task` keeps secret: the file's `secrets` and its own (an included file's
  /// are already its tasks').
  package func secretNames(of task: Int) -> [String] {
    let own = tasks[task].secretNames
    guard !file.secretNames.isEmpty else { return own }
    return file.secretNames + own.filter { !file.secretNames.contains($0) }
  }

  /// Every secret value of the run: each secret name's value in `environment` (runner's, with
  /// the file's `env`) and in the `env` of every task that keeps it secret.
  package func secretMask(environment: [String: String]) -> SecretMask {
    var values: [String] = []
    for name in file.secretNames { if let value = environment[name] { values.append(value) } }
    for index in tasks.indices {
      let names = secretNames(of: index)
      guard !names.isEmpty else { continue }
      for name in tasks[index].secretNames { if let value = environment[name] { values.append(value) } }
      for entry in tasks[index].environment where names.contains(entry.name) {
        values.append(entry.value.render { _, _ in nil })
      }
    }
    return SecretMask(values: values)
  }
}
