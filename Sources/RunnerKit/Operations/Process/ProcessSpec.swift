/// What to run: an argv, its complete environment and where.
public struct ProcessSpec: Sendable, Equatable {
  /// The argv. `arguments[0]` without a `/` is looked up in the `PATH` of `environment`.
  public var arguments: [String]
  /// The child's complete environment; nothing is inherited from runner.
  public var environment: [String: String]
  /// The child's working directory; `nil` inherits runner's.
  public var workingDirectory: String?

  public init(arguments: [String], environment: [String: String], workingDirectory: String? = nil) {
    self.arguments = arguments
    self.environment = environment
    self.workingDirectory = workingDirectory
  }
}
