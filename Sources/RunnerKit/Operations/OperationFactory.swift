/// Makes the operation that runs a task, by the kind of its action.
public struct OperationFactory: Sendable {
  let reactor: ProcessReactor

  public init(reactor: ProcessReactor = .shared) { self.reactor = reactor }

  public func operation(for task: TaskDefinition) -> any TaskOperation {
    switch task.action {
    case .group: return GroupOperation()
    case .shell(let commands): return ShellOperation(commands: commands, reactor: reactor)
    case .image(let steps): return ImageOperation(steps: steps)
    }
  }
}

/// A task with only dependencies: succeeds at once.
struct GroupOperation: TaskOperation {
  func run(_ context: OperationContext) async throws(TaskFailure) -> any OperationResult { EmptyResult() }
}
