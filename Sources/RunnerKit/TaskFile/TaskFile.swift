/// A whole task file, checked: settings and tasks in file order.
public struct TaskFile: Sendable {
  /// The path as the user named it.
  public var path: String
  /// The directory task paths are relative to.
  public var directory: String
  /// nil: as many as the machine has CPUs.
  public var concurrency: Int?
  public var failFast = true
  /// What runs when no target is named; empty: every task.
  public var defaultTargets: [Dependency] = []
  public var environment: [EnvironmentEntry] = []
  public var tasks: [TaskDefinition] = []

  public init(path: String, directory: String) {
    self.path = path
    self.directory = directory
  }
}
