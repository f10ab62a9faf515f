/// A justfile read into its items, in file order within each kind.
struct Justfile: Sendable {
  var settings: [JustSetting] = []
  var assignments: [JustAssignment] = []
  var aliases: [JustAlias] = []
  var recipes: [JustRecipe] = []
  /// `mod NAME ['PATH']`: another justfile whose recipes are `NAME::RECIPE`.
  var modules: [JustModule] = []
  /// `unexport NAME`: variables removed from the recipes' environment.
  var unexported: [(name: String, line: Int)] = []
  /// `import 'PATH'`, `import? 'PATH'`: another file whose items join this one's.
  var imports: [JustImport] = []
  /// `name(a, b) := expression`: user-defined functions.
  var functions: [JustFunction] = []
  /// Items the import does not carry (lines it cannot read).
  var skipped: [JustSkipped] = []
}

/// `name(a, b) := expression`: a function of its parameters and the file's variables.
struct JustFunction: Sendable {
  var name: String
  var parameters: [String]
  var body: JustExpression
  var line: Int
}

/// `import 'PATH'`, `import? 'PATH'`.
struct JustImport: Sendable {
  var path: String
  var optional: Bool
  var line: Int
}

/// `mod NAME`, `mod? NAME 'PATH'`.
struct JustModule: Sendable {
  var name: String
  /// As written (a file, or a directory holding `mod.just` or a justfile); nil: just's places.
  var path: String?
  var optional: Bool
  var line: Int
  var source: String
}

/// `[name]`, `[name('argument', …)]` or `[name: 'argument']`.
struct JustAttribute: Sendable {
  var name: String
  var arguments: [JustExpression]
  var line: Int

  /// As written, for report entries.
  var source: String {
    arguments.isEmpty ? "[\(name)]" : "[\(name)(\(arguments.map(\.source).joined(separator: ", ")))]"
  }
}

/// `set name`, `set name := value`.
struct JustSetting: Sendable {
  enum Value: Sendable {
    case boolean(Bool)
    case expression(JustExpression)
    case list([JustExpression])
  }

  var name: String
  var value: Value
  var line: Int
  var source: String
}

/// `name := expression`, `export name := expression`.
struct JustAssignment: Sendable {
  var name: String
  var expression: JustExpression
  var isExported: Bool
  var line: Int
  var source: String
}

/// `alias name := target`.
struct JustAlias: Sendable {
  var name: String
  var target: String
  var attributes: [JustAttribute]
  var line: Int
  var source: String
}

/// A recipe parameter: `name`, `$name`, `name="default"`, `+name`, `*name`.
struct JustParameter: Sendable {
  var name: String
  var defaultValue: JustExpression?
  /// `+` or `*` for the variadic last parameter.
  var variadic: Character?
  var isExported: Bool

  /// As written, for report entries.
  var source: String {
    (variadic.map(String.init) ?? "") + (isExported ? "$" : "") + name + (defaultValue.map { "=\($0.source)" } ?? "")
  }
}

/// A dependency: `name` or `(name argument…)`.
struct JustDependency: Sendable {
  var name: String
  var arguments: [JustExpression]
  /// `*(…)`: one invocation per element of a list argument.
  var isSpread = false

  /// As written, for report entries.
  var source: String {
    arguments.isEmpty && !isSpread
      ? name : "\(isSpread ? "*" : "")(\(([name] + arguments.map(\.source)).joined(separator: " ")))"
  }
}

/// One line of a recipe body, without the recipe's indentation ("" for a blank line).
struct JustBodyLine: Sendable {
  var text: String
  var line: Int
}

struct JustRecipe: Sendable {
  var name: String
  var line: Int
  var attributes: [JustAttribute]
  /// The comment line right above the recipe (its doc comment).
  var comment: String?
  var parameters: [JustParameter]
  var dependencies: [JustDependency]
  /// The dependencies after `&&`, run after the recipe.
  var subsequent: [JustDependency]
  var body: [JustBodyLine]
  /// The header line as written.
  var header: String
}

/// An item left out, with the report entry it gets.
struct JustSkipped: Sendable {
  var line: Int
  var construct: String
  var reason: String
}
