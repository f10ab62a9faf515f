/// What to run: an argv, its complete environment and where.
package struct ProcessSpec: Sendable, Equatable {
  /// The argv. `arguments[0]` without a `/` is looked up in the `PATH` of `environment`.
  package var arguments: [String]
  /// The child's complete environment; nothing is inherited from runner.
  package var environment: [String: String]
  /// The child's working directory; `nil` inherits runner's.
  package var workingDirectory: String?
  /// An interactive task: runner's own stdin, stdout and stderr, and the terminal's foreground.
  package var interactive = false
  /// Spawned traced, what it and its descendants do to files recorded here; nil: untraced.
  package var trace: ProcessTrace? = nil
  /// Landlock rules the process and its descendants are held to (`sandbox: strict`); nil: none.
  package var sandbox: Sandbox? = nil
  /// Up to two of runner's descriptors the process gets at the same numbers (a jobserver's
  /// pipe ends); runner still owns them, and closes them when the task ends.
  package var inherited: [Int32] = []

  package init(
    arguments: [String], environment: [String: String], workingDirectory: String? = nil, interactive: Bool = false
  ) {
    self.arguments = arguments
    self.environment = environment
    self.workingDirectory = workingDirectory
    self.interactive = interactive
  }
}
