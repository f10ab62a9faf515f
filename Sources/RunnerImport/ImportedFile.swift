/// A task file in runner's format as an import builds it, before it is written as YAML
/// (`TasksFileWriter`). Values are kept as text: the importers decide what they mean.
package struct ImportedFile: Sendable {
  /// Comment lines written at the top (without `# `).
  package var header: [String] = []
  package var defaultTargets: [String] = []
  /// `shell:` by name (`bash`), or as an argv (`[sh, -cu]`), which wins.
  package var shell: String?
  package var shellArguments: [String]?
  package var params: [ImportedParam] = []
  package var environment: [(name: String, value: String)] = []
  package var dotenv: [ImportedPath] = []
  package var includes: [ImportedInclude] = []
  package var tasks: [ImportedTask] = []

  package init() {}
}

package struct ImportedPath: Sendable, Equatable {
  package var path: String
  package var optional = false
  /// A `.env` entry: a command whose output is read instead of a file (`{ sh: CMD }`).
  package var command: String?
  /// A `.env` entry whose values win over runner's environment (`override: true`).
  package var overrides = false

  package init(_ path: String, optional: Bool = false) {
    self.path = path
    self.optional = optional
  }

  package init(command: String) {
    path = ""
    self.command = command
  }
}

package struct ImportedInclude: Sendable {
  package var namespace: String
  package var path: String
  package var optional = false
  /// `dir:`: where its tasks run, relative to the including file.
  package var directory: String?
  /// `with:`: values for its params.
  package var with: [(name: String, value: String)] = []

  package init(namespace: String, path: String, optional: Bool = false) {
    self.namespace = namespace
    self.path = path
    self.optional = optional
  }
}

/// A param: a value the command line (`NAME=value`) or a dependent's `with:` sets.
package struct ImportedParam: Sendable {
  package var name: String
  /// nil with `required`; nil without it is the empty default.
  package var defaultValue: String?
  /// A default a command prints (`default: { sh: CMD }`), run once when the file loads.
  package var defaultCommand: String?
  package var required = false
  package var description: String?
  /// `choices:`: the values it may take (empty: any).
  package var choices: [String] = []

  package init(
    name: String, defaultValue: String? = nil, defaultCommand: String? = nil, required: Bool = false,
    description: String? = nil
  ) {
    self.name = name
    self.defaultValue = defaultValue
    self.defaultCommand = defaultCommand
    self.required = required
    self.description = description
  }
}

/// A dependency, with the params it sets (`{task: NAME, with: {…}}`).
package struct ImportedDependency: Sendable {
  package var name: String
  package var with: [(name: String, value: String)] = []
  /// A call's `for:` values (`${{ item }}` in `with` stands for each).
  package var forEach: [String] = []
  /// A call's `for:` over values runner finds when it loads the file.
  package var forFound: FoundValues?
  /// `args: pass`: the words after `--` that reach the caller reach it too.
  package var passesArguments = false

  package init(_ name: String, with: [(name: String, value: String)] = []) {
    self.name = name
    self.with = with
  }
}

/// What a runner `for:` finds when the file loads: `{ files: [GLOB…] }` or `{ sh: CMD }`.
package enum FoundValues: Sendable, Equatable {
  case files([String])
  case command(String)
}

/// One item of a task's `run` list.
package enum ImportedCommand: Sendable {
  /// A shell script (may span lines).
  case shell(String)
  /// `- task: NAME` with `with:` params.
  case call(ImportedDependency)
}

package struct ImportedTask: Sendable {
  package var name: String
  /// Comment lines written above the task (without `# `), such as where it came from.
  package var comments: [String] = []
  package var description: String?
  package var dependencies: [ImportedDependency] = []
  package var commands: [ImportedCommand] = []
  package var environment: [(name: String, value: String)] = []
  package var params: [ImportedParam] = []
  package var dotenv: [ImportedPath] = []
  package var directory: String?
  package var sources: [String] = []
  package var outputs: [String] = []
  /// `if:`: a command (exit 0 runs the task) or a `${{ }}` expression.
  package var condition: String?
  package var shell: String?
  package var shellArguments: [String]?
  package var isInternal = false
  package var isInteractive = false
  package var aliases: [String] = []
  /// `prompt:`: asked before the run.
  package var prompt: String?
  /// `preconditions:`: each command with its message.
  package var preconditions: [(command: String, message: String?)] = []

  package init(name: String) { self.name = name }
}
