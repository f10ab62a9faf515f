/// One task as written in the task file, checked against the schema.
public struct TaskDefinition: Sendable, Identifiable {
  public var id: String { name }
  public var name: String
  /// Where the task's key is written.
  public var location: SourceLocation
  /// Index in file order: the last tie-breaker of the scheduler, the order of listings.
  public var index: Int
  public var description: String?
  public var dependencies: [Dependency] = []
  public var action: TaskAction = .group
  public var environment: [EnvironmentEntry] = []
  /// Working directory, relative to the task file's directory.
  public var directory: String?
  public var priority: Int = 0
  public var timeout: Duration?
  public var retries: Int = 0
  public var sources: [String] = []
  public var outputs: [String] = []
  public var waitFor: [ReadinessGate] = []
  public var resources: [String] = []

  public init(name: String, location: SourceLocation, index: Int) {
    self.name = name
    self.location = location
    self.index = index
  }
}

/// An edge as written: the name of the task depended on, and where.
public struct Dependency: Sendable, Hashable {
  public var name: String
  public var location: SourceLocation
}

/// What a task does when it runs.
public enum TaskAction: Sendable {
  /// Only groups its dependencies.
  case group
  /// Shell commands, run in order with `/bin/sh -c`; the first failure stops the task.
  case shell([Command])
  /// Built-in image steps, applied in order.
  case image([ImageStep])

  public var kindName: String {
    switch self {
    case .group: return "group"
    case .shell: return "shell"
    case .image: return "image"
    }
  }
}

public struct Command: Sendable, Hashable {
  public var text: String
  public var location: SourceLocation
}

/// `NAME: value` in an `env` mapping; the value may read dependencies' outputs.
public struct EnvironmentEntry: Sendable {
  public var name: String
  public var value: Template
  public var location: SourceLocation
}

/// A condition that must hold before a task may start (Operation's `isReady`).
public struct ReadinessGate: Sendable, Hashable, CustomStringConvertible {
  public enum Condition: Sendable, Hashable {
    case file(String)
    case tcp(host: String, port: Int)
    case command(String)
  }

  public var condition: Condition
  public var timeout: Duration
  public var location: SourceLocation

  public var description: String {
    switch condition {
    case .file(let path): return "file '\(path)'"
    case .tcp(let host, let port): return "tcp \(host):\(port)"
    case .command(let command): return "command '\(command)'"
    }
  }
}
