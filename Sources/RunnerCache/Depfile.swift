/// A Makefile-syntax dependency file, as compilers write one (`cc -MMD -MF out/a.d`, `swiftc
/// -emit-dependencies`, `rustc --emit=dep-info`): `target: prerequisite …` rules, lines joined
/// by a backslash before the newline. A task's `depfile` names one; the prerequisites of all
/// its rules are files the task read (ninja's `depfile`, read as its depfile parser reads
/// one).
///
/// Escapes as make and ninja read them: `\ ` is a space in a name, `\#` a `#`, `$$` a `$`; any
/// other backslash is part of the name. A rule with no prerequisites (`cc -MP`'s line for each
/// header) adds nothing.
package enum Depfile {
  package struct Problem: Error, Sendable, CustomStringConvertible, Equatable {
    package var line: Int
    package var reason: String
    package var description: String { "line \(line): \(reason)" }
  }

  /// The prerequisites of every rule, in order, each once.
  package static func prerequisites(_ bytes: [UInt8]) -> Result<[String], Problem> {
    var found: [String] = []
    var seen = Set<String>()
    var word: [UInt8] = []
    var line = 1
    // Where the rule being read started, and whether its targets ended (a `:` was met).
    var ruleLine = 1
    var targetsEnded = false
    var ruleHasWords = false
    var index = bytes.startIndex

    func finishWord() {
      guard !word.isEmpty else { return }
      defer { word.removeAll(keepingCapacity: true) }
      var rest = word[...]
      if !targetsEnded {
        ruleHasWords = true
        // `out/a.o:` ends the targets; so does a `:` written apart (`out/a.o : a.c`) or one
        // with no blank after it (`out/a.o:a.c`).
        guard let colon = word.firstIndex(of: UInt8(ascii: ":")) else { return }
        targetsEnded = true
        rest = word[(colon + 1)...]
        if rest.isEmpty { return }
      }
      let name = String(decoding: rest, as: UTF8.self)
      if seen.insert(name).inserted { found.append(name) }
      return
    }
    func finishRule() -> Problem? {
      if ruleHasWords, !targetsEnded {
        return Problem(line: ruleLine, reason: "expected 'target: prerequisites', found no ':'")
      }
      targetsEnded = false
      ruleHasWords = false
      ruleLine = line
      return nil
    }

    while index < bytes.endIndex {
      let byte = bytes[index]
      let next = index + 1 < bytes.endIndex ? bytes[index + 1] : nil
      switch byte {
      case UInt8(ascii: "\\"):
        if next == UInt8(ascii: "\n")
          || (next == UInt8(ascii: "\r") && index + 2 < bytes.endIndex
            && bytes[index + 2] == UInt8(ascii: "\n"))
        {
          // A line continued: a separator.
          finishWord()
          index += next == UInt8(ascii: "\n") ? 2 : 3
          line += 1
          continue
        }
        if let next, next == UInt8(ascii: " ") || next == UInt8(ascii: "#") {
          word.append(next)
          index += 2
          continue
        }
        word.append(byte)
      case UInt8(ascii: "$") where next == UInt8(ascii: "$"):
        word.append(byte)
        index += 2
        continue
      case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
        finishWord()
      case UInt8(ascii: "\n"):
        finishWord()
        if let problem = finishRule() { return .failure(problem) }
        line += 1
        ruleLine = line
      case UInt8(ascii: "#") where word.isEmpty && !ruleHasWords:
        // A comment line: up to its end.
        while index < bytes.endIndex, bytes[index] != UInt8(ascii: "\n") { index += 1 }
        continue
      case 0:
        return .failure(Problem(line: line, reason: "a NUL byte: not a depfile"))
      default:
        word.append(byte)
      }
      index += 1
    }
    finishWord()
    if let problem = finishRule() { return .failure(problem) }
    return .success(found)
  }
}
