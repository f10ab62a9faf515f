import Glibc

/// What the command line gives the task file: `NAME=value` params, the targets, and the
/// words after `--`.
package struct Invocation: Sendable {
  package var params: [(name: String, value: String)] = []
  package var targets: [String] = []
  /// Words after `--`: the named targets' `"$@"`.
  package var arguments: [String] = []

  package init(params: [(name: String, value: String)] = [], targets: [String] = [], arguments: [String] = []) {
    self.params = params
    self.targets = targets
    self.arguments = arguments
  }

  /// `NAME`, or `NAMESPACE:NAME` (a param of the file included there, `api:db:NAME` nested).
  static func isParamName(_ text: Substring) -> Bool {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard let name = parts.last, VariableText.isValidName(name) else { return false }
    return parts.dropLast().allSatisfy { part in
      !part.isEmpty && part.allSatisfy { $0.isLetter || $0.isNumber || "_-.".contains($0) }
    }
  }

  /// Splits the words after the task file into `NAME=value` params and targets.
  package static func split(_ words: [String]) -> (params: [(name: String, value: String)], targets: [String]) {
    var params: [(name: String, value: String)] = []
    var targets: [String] = []
    for word in words {
      if let equals = word.firstIndex(of: "="), isParamName(word[..<equals]) {
        params.append((String(word[..<equals]), String(word[word.index(after: equals)...])))
      } else if word.count > 1, word.hasSuffix(":"), !word.hasSuffix("::") {
        // `api:` is the include's default task, as `api` is.
        targets.append(String(word.dropLast()))
      } else {
        targets.append(word)
      }
    }
    return (params, targets)
  }
}

/// `runner.os` and `runner.arch`: the kernel's name and machine, as `uname` prints them, in
/// lower case (`linux`, `x86_64`, `aarch64`); `runner.exe_suffix`, what executables end in
/// (nothing here); `runner.root`, the root task file's directory.
package enum RunnerPlatform {
  package static let os: String = field { $0.sysname }
  package static let arch: String = field { $0.machine }
  /// The names after `runner.`.
  package static let names = ["os", "arch", "exe_suffix", "root", "args"]

  /// The value of `runner.NAME`, with `root` standing for the root file's directory and
  /// `args` for the words after `--`, joined with spaces.
  package static func value(_ name: String, root: String, arguments: [String] = []) -> String {
    switch name {
    case "os": return os
    case "arch": return arch
    case "root": return root
    case "args": return arguments.joined(separator: " ")
    default: return ""
    }
  }

  private static func field(_ pick: (inout utsname) -> some Any) -> String {
    var name = utsname()
    guard uname(&name) == 0 else { return "" }
    var copy = pick(&name)
    return withUnsafeBytes(of: &copy) { bytes in
      String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self).lowercased()
    }
  }
}
