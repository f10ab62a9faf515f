/// Where an interpolation stands in shell text, which decides how a value is read there.
enum JustQuoting: Sendable, Equatable {
  /// Outside quotes (also inside `$(…)` and backticks, and in comments).
  case unquoted
  /// Inside `"…"` (an interpolation inside `'…'` is read there too: the quotes are rewritten).
  case double
  /// In the body of a here-document whose delimiter is not quoted: expanded like `"…"`.
  case hereDocument
  /// In the body of a here-document with a quoted delimiter (`<<'EOF'`): nothing is expanded.
  case quotedHereDocument
  /// In a script handed to an interpreter through an unquoted here-document, whose text is escaped.
  case script
}

/// One `{{expression}}` met in shell text.
struct JustInterpolation: Sendable {
  var expression: JustExpression
  var quoting: JustQuoting
  /// As written, braces included.
  var written: String
  /// The line of the text it is on, from 0.
  var lineOffset: Int
}

/// What an interpolation becomes: `text`, which is just's own spliced text when `isLiteral`.
struct JustReplacement: Sendable {
  var text: String
  var isLiteral: Bool
}

/// Shell text with its `{{…}}` interpolations replaced, and what the scan saw on the way.
struct JustShellText: Sendable {
  var text: String
  /// Where a comment outside quotes starts in `text` (a character offset), for appending to a command.
  var commentStart: Int?
  /// A `;`, `&` or line break outside quotes: the text is a list of commands, not one.
  var isList = false
  /// `$1`, `$@`, `$*`, `$#` (or `${1}` …) read outside single quotes, in the original text.
  var readsPositionalArguments = false
  /// `$0` (or `${0}`) read outside single quotes.
  var readsScriptName = false
}
