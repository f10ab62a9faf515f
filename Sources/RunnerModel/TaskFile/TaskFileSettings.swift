/// `params:` entry: a value the command line (`NAME=value`) or a dependent (`with:`) sets.
package struct ParamDeclaration: Sendable, Hashable {
  package var name: String
  /// May read earlier params and `runner.*` (`${{ params.VERSION }}-rc`).
  package var defaultValue: String?
  /// `default: { sh: CMD }`: the default is what CMD prints (its last newline dropped), run
  /// once per run in the file's directory.
  package var defaultCommand: String?
  /// Empty: any value.
  package var choices: [String] = []
  package var isRequired = false
  package var description: String?
  package var location: SourceLocation

  package init(name: String, location: SourceLocation) {
    self.name = name
    self.location = location
  }
}

/// A `.env` file a task file names, relative to its directory, or a command that prints one.
package struct DotEnvReference: Sendable, Hashable {
  /// Empty for a command.
  package var path: String
  /// `{ sh: CMD }`: what CMD prints (run once per run in the file's directory) is read as a
  /// `.env` file; a failure is an error at the entry.
  package var command: String?
  /// `{ path: F, optional: true }`: a missing file is no error.
  package var isOptional = false
  /// `{ path: F, override: true }`: its values win over runner's own environment.
  package var isOverriding = false
  package var location: SourceLocation

  package init(path: String, command: String? = nil, location: SourceLocation) {
    self.path = path
    self.command = command
    self.location = location
  }
}

/// `matrix:`: axes of values, and GitHub Actions' `include` and `exclude` lists.
package struct MatrixDeclaration: Sendable {
  package struct Axis: Sendable, Hashable {
    package var name: String
    package var values: [String]
  }

  package var axes: [Axis] = []
  package var include: [[(String, String)]] = []
  package var exclude: [[(String, String)]] = []
  package var location: SourceLocation

  package init(location: SourceLocation) { self.location = location }

  /// The names `${{ matrix.NAME }}` may read: the axes and the keys `include` adds.
  package var names: [String] { axes.map(\.name) + include.flatMap { $0.map(\.0) } }

  /// Every combination in axis order (the first axis outermost), less those an `exclude`
  /// entry matches; then each `include` entry extends the combinations it agrees with on
  /// the axes it names (an entry naming no axis extends every one), or, agreeing with none,
  /// is a combination of its own.
  /// The most combinations a matrix may make, its axes multiplied out before any `exclude`,
  /// plus its `include` entries (GitHub Actions allows 256 jobs a matrix).
  package static let maximumCombinations = 1024

  package var combinations: [[(String, String)]] {
    var result: [[(String, String)]] = [[]]
    for axis in axes {
      result = result.flatMap { combination in axis.values.map { combination + [(axis.name, $0)] } }
    }
    if axes.isEmpty { result = [] }
    result.removeAll { combination in
      exclude.contains { entry in entry.allSatisfy { key, value in combination.contains { $0 == (key, value) } } }
    }
    let axisNames = Set(axes.map(\.name))
    for entry in include {
      let onAxes = entry.filter { axisNames.contains($0.0) }
      var extended = false
      for index in result.indices
      where onAxes.allSatisfy({ key, value in result[index].contains { $0 == (key, value) } }) {
        for (key, value) in entry where !result[index].contains(where: { $0.0 == key }) {
          result[index].append((key, value))
        }
        extended = true
      }
      if !extended { result.append(entry) }
    }
    return result
  }
}

/// `if:`: a command (exit 0 runs the task) or a `${{ }}` expression.
package enum TaskCondition: Sendable, Hashable, CustomStringConvertible {
  case command(String)
  case expression(ConditionExpression)

  package var description: String {
    switch self {
    case .command(let text): return text
    case .expression(let expression): return "${{ \(expression) }}"
    }
  }
}

/// One `with:` value of a dependency: a param of the task depended on.
package struct ParamValue: Sendable, Hashable {
  package var name: String
  package var value: Template
  package var location: SourceLocation
}

/// `includes:` entry: another task file whose tasks become `NAMESPACE:task`.
package struct IncludeDeclaration: Sendable, Hashable {
  /// `*` names each match of a glob path after its directory.
  package var namespace: String
  package var path: String
  package var isOptional = false
  /// `dir:`: where its tasks run, relative to the including file's directory (nil: the
  /// included file's own directory).
  package var directory: String?
  /// `with:`: values for the included file's params, over their defaults.
  package var with: [ParamValue] = []
  package var location: SourceLocation
}

/// An included file as its tasks see it: its namespace, directory, and the settings that
/// reach its tasks only. Scope 0 is the root file.
package struct IncludeScope: Sendable {
  /// `api`, `api:db`; empty for the root file.
  package var namespace: String
  /// The other namespaces the same file was included under the same way (`IncludeResolver`).
  package var otherNamespaces: [String] = []
  /// The file's path as messages show it.
  package var path: String
  /// Its directory as the user would name it (for its `.env` files).
  package var fileDirectory: String
  /// Its directory relative to the root file's, which its tasks' `dir` is joined to.
  package var relativeDirectory = "."
  package var params: [ParamDeclaration] = []
  /// The including file's `with:` for them, read in its scope.
  package var with: [ParamValue] = []
  package var environment: [EnvironmentEntry] = []
  package var dotenv: [DotEnvReference] = []
  /// The including scope; nil for the root.
  package var parent: Int?

  package init(namespace: String, path: String, fileDirectory: String, parent: Int?) {
    self.namespace = namespace
    self.path = path
    self.fileDirectory = fileDirectory
    self.parent = parent
  }
}

/// Where a variable of a task's environment comes from, for `--describe`.
package enum EnvironmentOrigin: Sendable, Hashable {
  case env
  /// `NAME: null` in an `env`: the variable is removed, not set.
  case unset
  case dotenv
  case param
  case commandLine
}
