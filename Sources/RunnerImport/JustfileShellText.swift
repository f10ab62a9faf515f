/// Replaces just's `{{expression}}` interpolations in shell text (a recipe line, or a shebang
/// recipe's whole script) by what `interpolate` returns for each, following the shell's
/// quoting — single and double quotes, `$(…)`, backticks, comments, here-documents — so each
/// replacement knows where it stands. `{{{{` is just's escaped `{{`.
struct JustShellRewriter {
  /// The replacement for an interpolation, or nil to keep it as written. Literal text is
  /// spliced as it is, even inside `'…'`, as just splices it; other text (reading variables) is
  /// written so that the shell expands it there.
  typealias Interpolate = (JustInterpolation) -> JustReplacement?

  enum Frame: Equatable {
    case command
    case substitution(depth: Int)
    case backtick
    case double
    case single
    case comment
    case hereDocument(delimiter: String, quoted: Bool, stripsTabs: Bool)
  }

  let characters: [Character]
  /// Text handed to an interpreter in an unquoted here-document: no shell quoting applies, and
  /// the text around interpolations is escaped.
  let isScript: Bool
  var position = 0
  var frames: [Frame] = [.command]
  /// Here-documents opened on the current line, whose bodies start at the next line break.
  var pendingHereDocuments: [Frame] = []
  var result = JustShellText(text: "")
  var output: [Character] = []
  /// Where the single-quoted string being read opened, in `output`.
  var singleQuoteStart = 0
  /// The replacements of the interpolations in that string, with where they go in `output`.
  var singleQuoteInsertions: [(offset: Int, text: String)] = []

  init(_ text: String, isScript: Bool) {
    characters = Array(text)
    self.isScript = isScript
  }

  /// Rewrites shell text.
  static func rewrite(_ text: String, interpolate: Interpolate) -> JustShellText {
    var rewriter = JustShellRewriter(text, isScript: false)
    return rewriter.run(interpolate)
  }

  /// Rewrites a script for an unquoted here-document: `\`, `$` and backquotes escaped, each
  /// interpolation at `.script`.
  static func rewriteScript(_ text: String, interpolate: Interpolate) -> String {
    var rewriter = JustShellRewriter(text, isScript: true)
    return rewriter.run(interpolate).text
  }

  /// Scans the whole text once, replacing each interpolation as it is met.
  mutating func run(_ interpolate: Interpolate) -> JustShellText {
    while position < characters.count {
      if case .hereDocument(let delimiter, _, let stripsTabs) = frames.last, atLineStart,
        endsHereDocument(delimiter, stripsTabs: stripsTabs)
      {
        frames.removeLast()
        continue
      }
      if characters[position] == "{", lookingAt("{{") {
        interpolation(interpolate)
        continue
      }
      if isScript {
        output += JustfileConversion.escapedForHereDocument(String(characters[position]))
        position += 1
        continue
      }
      step()
    }
    if frames.last == .single { closeSingleQuote(closed: false) }
    result.text = String(output)
    return result
  }

  /// True at the first character of a line.
  var atLineStart: Bool { position == 0 || characters[position - 1] == "\n" }

  /// True when the text at the position starts with `text`.
  func lookingAt(_ text: String) -> Bool {
    var index = position
    for character in text {
      guard index < characters.count, characters[index] == character else { return false }
      index += 1
    }
    return true
  }

  /// Copies `count` characters.
  mutating func copy(_ count: Int = 1) {
    let end = min(position + count, characters.count)
    output += characters[position..<end]
    position = end
  }

  /// How the shell reads the text at the position.
  var quoting: JustQuoting {
    if isScript { return .script }
    switch frames.last ?? .command {
    case .command, .substitution, .backtick, .comment: return .unquoted
    case .double, .single: return .double
    case .hereDocument(_, let quoted, _): return quoted ? .quotedHereDocument : .hereDocument
    }
  }

  /// `{{{{` (an escaped `{{`) or `{{ expression }}`.
  mutating func interpolation(_ interpolate: Interpolate) {
    if lookingAt("{{{{") {
      output += ["{", "{"]
      position += 4
      return
    }
    let start = position
    var scanner = JustScanner(characters, at: position + 2)
    // Inside the braces an expression may span lines.
    scanner.depth = 1
    scanner.allowsComments = false
    var expression: JustExpression
    do throws(JustSyntaxError) {
      scanner.skipBlanks()
      expression = try scanner.expression()
      scanner.skipBlanks()
      guard scanner.accept("}}") else { throw scanner.error("expected '}}'") }
    } catch {
      guard let end = closingBraces(from: start + 2) else {
        copy(2)
        return
      }
      scanner.position = end
      expression = .other(JustText.trimmed(String(characters[(start + 2)..<(end - 2)])))
    }
    position = scanner.position
    let written = String(characters[start..<position])
    let line = characters[..<start].reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
    if let replacement = interpolate(
      JustInterpolation(expression: expression, quoting: quoting, written: written, lineOffset: line))
    {
      if frames.last == .single, !replacement.isLiteral {
        singleQuoteInsertions.append((output.count, replacement.text))
      } else {
        output += replacement.text
      }
    } else {
      output += isScript ? JustfileConversion.escapedForHereDocument(written) : written
    }
  }

  /// Ends a single-quoted string: with interpolations in it, it is written again so that the
  /// shell expands them — as one double-quoted string when its text allows (`'{{a}} b'` →
  /// `"${a} b"`), else with the quotes closed around each (`'{"k": "{{a}}"}'` → `'{"k": "'"${a}"'"}'`).
  mutating func closeSingleQuote(closed: Bool) {
    defer { singleQuoteInsertions = [] }
    guard !singleQuoteInsertions.isEmpty else { return }
    let content = Array(output[(singleQuoteStart + 1)...])
    var chunks: [String] = []
    var last = 0
    for insertion in singleQuoteInsertions {
      let offset = insertion.offset - singleQuoteStart - 1
      chunks.append(String(content[last..<offset]))
      last = offset
    }
    chunks.append(String(content[last...]))
    output.removeSubrange(singleQuoteStart...)
    let ansi = output.last == "$"
    let plain = chunks.allSatisfy { !$0.contains { "$`\\\"".contains($0) } }
    if closed, plain, !ansi {
      output.append("\"")
      for (index, chunk) in chunks.enumerated() {
        output += chunk
        if index < singleQuoteInsertions.count { output += singleQuoteInsertions[index].text }
      }
      output.append("\"")
      return
    }
    for (index, chunk) in chunks.enumerated() {
      let isLast = index == chunks.count - 1
      if !chunk.isEmpty || (isLast && !closed) || (index == 0 && ansi) {
        output += "'" + chunk + (isLast && !closed ? "" : "'")
      }
      if !isLast { output += "\"" + singleQuoteInsertions[index].text + "\"" }
    }
  }

  /// The offset just past the next `}}` on the same line, if any.
  func closingBraces(from start: Int) -> Int? {
    var index = start
    while index + 1 < characters.count, characters[index] != "\n" {
      if characters[index] == "}", characters[index + 1] == "}" { return index + 2 }
      index += 1
    }
    return nil
  }

  /// True (and the delimiter line copied) when the line at the position ends the here-document.
  mutating func endsHereDocument(_ delimiter: String, stripsTabs: Bool) -> Bool {
    var end = position
    while end < characters.count, characters[end] != "\n" { end += 1 }
    var line = characters[position..<end]
    if stripsTabs { line = line.drop { $0 == "\t" } }
    guard String(line) == delimiter else { return false }
    copy(end - position)
    return true
  }

  /// One character (or an escape, a `$(`) in the current frame.
  mutating func step() {
    let character = characters[position]
    switch frames.last ?? .command {
    case .single:
      guard character == "'" else { return copy() }
      frames.removeLast()
      copy()
      if !singleQuoteInsertions.isEmpty {
        output.removeLast()
        closeSingleQuote(closed: true)
      }
    case .comment:
      if character == "\n" {
        frames.removeLast()
        return
      }
      copy()
    case .hereDocument:
      copy()
    case .double:
      inDouble(character)
    case .command, .substitution, .backtick:
      inCommand(character)
    }
  }

  /// One character inside `"…"`: escapes, the closing quote, `$(` and backquotes.
  mutating func inDouble(_ character: Character) {
    switch character {
    case "\\": copy(2)
    case "\"":
      frames.removeLast()
      copy()
    case "`":
      frames.append(.backtick)
      copy()
    case "$":
      dollar()
    default: copy()
    }
  }

  /// `$(`, `${…}` and `$1`-style reads, in a command or inside `"…"`.
  mutating func dollar() {
    let next = position + 1 < characters.count ? characters[position + 1] : " "
    if next == "(" {
      frames.append(.substitution(depth: 0))
      copy(2)
      return
    }
    if "@*#123456789".contains(next) { result.readsPositionalArguments = true }
    if next == "0" || (next == "{" && position + 2 < characters.count && characters[position + 2] == "0") {
      result.readsScriptName = true
    }
    if next == "{", position + 2 < characters.count, "@*#123456789".contains(characters[position + 2]) {
      result.readsPositionalArguments = true
    }
    copy(next == "$" ? 2 : 1)
  }

  /// One character outside quotes: quotes, `$(`, comments, here-documents, list separators.
  mutating func inCommand(_ character: Character) {
    let top = frames.count == 1
    switch character {
    case "\\": copy(2)
    case "'":
      frames.append(.single)
      singleQuoteStart = output.count
      copy()
    case "\"":
      frames.append(.double)
      copy()
    case "`":
      if frames.last == .backtick { frames.removeLast() } else { frames.append(.backtick) }
      copy()
    case "$": dollar()
    case "(":
      if case .substitution(let depth) = frames.last { frames[frames.count - 1] = .substitution(depth: depth + 1) }
      copy()
    case ")":
      if case .substitution(let depth) = frames.last {
        if depth == 0 { frames.removeLast() } else { frames[frames.count - 1] = .substitution(depth: depth - 1) }
      }
      copy()
    case "#" where atWordStart:
      if top { result.commentStart = output.count }
      frames.append(.comment)
      copy()
    case "<" where lookingAt("<<") && !lookingAt("<<<") && opensHereDocument:
      hereDocument()
    case "\n":
      if top { result.isList = true }
      copy()
      if !pendingHereDocuments.isEmpty { frames.append(pendingHereDocuments.removeFirst()) }
    case ";":
      if top { result.isList = true }
      copy()
    case "&":
      if lookingAt("&&") {
        copy(2)
        return
      }
      let previous = position > 0 ? characters[position - 1] : " "
      let next = position + 1 < characters.count ? characters[position + 1] : " "
      if top, previous != ">", previous != "<", next != ">" { result.isList = true }
      copy()
    default: copy()
    }
  }

  /// True when the `<<` at the position is followed by a here-document's delimiter (a word,
  /// possibly quoted), not a number (`$((1 << 2))`).
  var opensHereDocument: Bool {
    var index = position + 2
    while index < characters.count, characters[index] == "-" || characters[index] == " " || characters[index] == "\t" {
      index += 1
    }
    guard index < characters.count else { return false }
    let first = characters[index]
    return first == "'" || first == "\"" || first == "\\" || JustScanner.isNameStart(first)
  }

  /// True where a `#` starts a comment: at the start of a word.
  var atWordStart: Bool {
    guard position > 0 else { return true }
    return " \t\n;&|()<>".contains(characters[position - 1])
  }

  /// `<<WORD`, `<<-WORD`, `<<'WORD'`, `<<"WORD"`: the body starts at the next line break.
  mutating func hereDocument() {
    copy(2)
    let stripsTabs = position < characters.count && characters[position] == "-"
    if stripsTabs { copy() }
    while position < characters.count, characters[position] == " " || characters[position] == "\t" { copy() }
    var delimiter = ""
    var quoted = false
    while position < characters.count, !" \t\n;&|<>()".contains(characters[position]) {
      let character = characters[position]
      if character == "'" || character == "\"" {
        quoted = true
        copy()
        while position < characters.count, characters[position] != character {
          delimiter.append(characters[position])
          copy()
        }
        copy()
      } else if character == "\\" {
        quoted = true
        copy()
        if position < characters.count { delimiter.append(characters[position]) }
        copy()
      } else {
        delimiter.append(character)
        copy()
      }
    }
    guard !delimiter.isEmpty else { return }
    pendingHereDocuments.append(.hereDocument(delimiter: delimiter, quoted: quoted, stripsTabs: stripsTabs))
  }
}
