/// Decides whether a shell command line can skip the shell, as make does for simple commands.
///
/// Exec'ing `cc -c a.c` directly saves starting `/bin/sh` for every task. Anything the shell would
/// interpret (quoting, expansion, redirection, globbing, control operators, assignments, builtins
/// and keywords) keeps the shell; being conservative only costs speed, being wrong costs correctness.
package enum CommandSplitter {
  /// The argv when `command` can be exec'd directly without a shell; `nil` when it needs `/bin/sh -c`.
  package static func directArguments(_ command: String) -> [String]? {
    var words: [String] = []
    for word in command.utf8.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
      guard word.allSatisfy(isPlain), let first = word.first, first != UInt8(ascii: "~") else { return nil }
      words.append(String(decoding: word, as: UTF8.self))
    }
    guard let program = words.first else { return nil }
    // `FOO=bar cmd` is an assignment; `=` anywhere in the first word keeps it simple to reason about.
    if program.utf8.contains(UInt8(ascii: "=")) || shellOnly.contains(program) { return nil }
    return words
  }

  /// Bytes the shell gives no meaning to inside a word. Everything else, including every control
  /// character and newline, sends the command to the shell. Bytes >= 0x80 (UTF-8) are plain.
  private static func isPlain(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ","),
      UInt8(ascii: ":"), UInt8(ascii: "+"), UInt8(ascii: "@"), UInt8(ascii: "="), UInt8(ascii: "~"):
      // `=` and `~` are plain after the first byte of a word (`--out=x`, `a~b`); the callers above
      // reject a leading `~` and an `=` in the program word.
      return true
    case 0x80...0xFF:
      return true
    default:
      return false
    }
  }

  /// Builtins whose effect (or existence) is the shell's own, reserved words, and builtins that
  /// behave differently from their /usr/bin twin (`echo` escapes, `pwd` with symlinks, `kill %1`).
  /// `true`, `false` and `test` behave the same either way, so they are exec'd directly.
  private static let shellOnly: Set<String> = [
    ".", ":", "alias", "bg", "break", "builtin", "case", "cd", "command", "continue", "do", "done", "echo", "elif",
    "else",
    "esac", "eval", "exec", "exit", "export", "fc", "fg", "fi", "for", "function", "getopts", "hash", "if", "in",
    "jobs", "kill", "local", "printf", "pwd", "read", "readonly", "return", "select", "set", "shift", "source", "then",
    "time", "times",
    "trap", "type", "typeset", "ulimit", "umask", "unalias", "unset", "until", "wait", "while",
  ]
}
