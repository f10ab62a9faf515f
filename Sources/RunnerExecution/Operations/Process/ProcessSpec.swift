/// What to run: an argv, its complete environment and where.
package struct ProcessSpec: Sendable, Equatable {
  /// The argv. `arguments[0]` without a `/` is looked up in the `PATH` of `environment`.
  package var arguments: [String]
  /// The child's complete environment; nothing is inherited from runner.
  package var environment: [String: String]
  /// The child's working directory; `nil` inherits runner's.
  package var workingDirectory: String?

  package init(arguments: [String], environment: [String: String], workingDirectory: String? = nil) {
    self.arguments = arguments
    self.environment = environment
    self.workingDirectory = workingDirectory
  }
}
