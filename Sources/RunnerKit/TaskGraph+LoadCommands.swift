import RunnerModel

extension TaskGraph {
  /// Whether loading the file ran commands or listed files: a param's `sh:` default, a `for:`
  /// that listed files or ran a command, a `.env` entry `{ sh: CMD }`.
  var ranCommandsAtLoad: Bool {
    let runsCommand = { (references: [DotEnvReference]) in references.contains { $0.command != nil } }
    return file.params.contains(where: { $0.defaultCommand != nil })
      || runsCommand(file.dotenv) || file.scopes.contains(where: { runsCommand($0.dotenv) })
      || rareTasks.contains(where: { node in
        tasks[node].repeatsAtLoad || tasks[node].params.contains { $0.defaultCommand != nil }
          || runsCommand(tasks[node].dotenv)
      })
  }

  /// Whether a task's `if:` runs a command.
  var hasCommandConditions: Bool { rareTasks.contains(where: { tasks[$0].hasCommandCondition }) }

  /// The tasks that set any rarely set field. The others are passed over on that one field: a
  /// task read whole is copied, every reference it holds retained and released.
  private var rareTasks: [Int] { tasks.indices.filter { tasks[$0].setsRareFields } }
}
