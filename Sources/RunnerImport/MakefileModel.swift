/// A variable as make keeps it while reading a Makefile.
struct MakeVariable: Sendable {
  enum Flavor: Sendable {
    /// `=`, `?=`, `define`: expanded each time it is used.
    case recursive
    /// `:=`, `::=`, `!=`: expanded once, where it is defined.
    case simple
  }

  enum Origin: Sendable {
    /// Defined in the Makefile.
    case file
    /// One of make's built-in variables (`CC`, `RM`, …).
    case builtin
    /// A `foreach` variable or a `call` argument.
    case automatic
  }

  /// Make text: as written for a recursive variable; for a simple one, its value with each
  /// `$` doubled (and markers for what only the shell can work out), so expanding it again
  /// gives the value.
  var value: String
  var flavor: Flavor
  var origin: Origin
  /// Where it was last set (0 for built-in ones).
  var line: Int
  var isOverride = false
  /// A simple variable's definition as written (nil for `!=`).
  var definition: String?
  /// The variables a simple variable's definition read.
  var from: Set<String> = []
  /// Expanding `definition` with the final values gives `value`: a recipe may expand the
  /// definition instead, so that the params it reads stay `${NAME}`.
  var stable = false
  /// Its value is not known at import: it was made from `$(shell …)` output needed then, or a
  /// conditional that could not be decided may set it.
  var unknown = false
}

/// Text a Makefile expands to: plain text, or what only the shell can work out when a command runs.
enum MakePiece: Sendable, Equatable {
  case text(String)
  /// `$(shell …)` or `!=`.
  case shell(MakeShellCommand)
  /// A variable the Makefile does not define: the shell reads it from the environment.
  case variable(MakeShellVariable)
  /// A variable imported as a param: `${NAME}` in the command.
  case param(String)
  /// What `$(wildcard …)` returned: its patterns, which the shell or `sources` match later.
  case glob(String, line: Int)
}

/// A command whose output make splices into the text.
struct MakeShellCommand: Sendable, Equatable {
  var command: [MakePiece]
  var line: Int
  /// How it is written in the Makefile, for the report.
  var written: String
  /// Run once, where a simple variable is defined (else each time make expands it).
  var once: Bool
}

/// A reference that becomes a shell variable in a command, with what to say about it.
struct MakeShellVariable: Sendable, Equatable {
  var name: String
  var line: Int
  var written: String
  /// Why it differs in a command (`${NAME}`).
  var commandReason: String
  /// What it is when the text is needed at import (a target, a prerequisite, a condition).
  var importValue: String
  var importReason: String
}

/// The automatic variables of one target's recipe.
struct MakeAutomatic: Sendable {
  var target: String
  /// Every prerequisite, in order, with duplicates (`$+`).
  var prerequisites: [String]
  var orderOnly: [String]
  /// `$*`: a static pattern rule's stem, or the target less a known suffix.
  var stem: String
}

/// One line of a recipe as written (without its tab), continuation lines kept.
struct MakeRecipeLine: Sendable {
  var text: String
  var line: Int
}

/// One rule (`targets: prerequisites` and its recipe) as read.
struct MakeRule: Sendable {
  enum Kind: Sendable {
    case explicit
    /// `targets: target-pattern: prerequisite-patterns`.
    case staticPattern(target: String, prerequisites: [String])
    /// A special target (`.PHONY`, …): read, never a task.
    case special
    /// A rule that is reported and left out (pattern, suffix and double-colon rules).
    case ignored
  }

  var targets: [String]
  var prerequisites: [String]
  var orderOnly: [String]
  var recipe: [MakeRecipeLine] = []
  var line: Int
  var description: String?
  var kind: Kind
}

/// One target with its rules merged: what becomes a task.
struct MakeTarget: Sendable {
  var path: String
  var line: Int
  var prerequisites: [String] = []
  var orderOnly: [String] = []
  var recipe: [MakeRecipeLine] = []
  /// The line of the rule that gave the recipe.
  var recipeRuleLine: Int?
  var description: String?
  var stem: String?

  init(path: String, line: Int) {
    self.path = path
    self.line = line
  }
}

/// What the special targets and variables ask of the whole file.
struct MakeSettings: Sendable {
  var oneShell: Int?
  var ignoreErrors = false
  var notParallel: Int?
  var deleteOnError: Int?
  var exportAll = false
  var shellFlags: (value: String, line: Int)?
}
