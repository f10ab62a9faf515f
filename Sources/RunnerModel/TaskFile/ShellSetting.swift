/// The `shell` setting: the program and flags a task's script is handed to, as the last argument.
package enum ShellSetting {
  /// With errexit, as GitHub Actions runs `sh`: a failing line of a multi-line script fails the task.
  package static let standard = ["/bin/sh", "-e", "-c"]
  /// `shell: bash`, as GitHub Actions runs it: no profile or rc files, errexit and pipefail.
  package static let bash = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"]
  /// `shell: zsh`: no rc files, errexit and pipefail.
  package static let zsh = ["zsh", "--no-rcs", "-e", "-o", "pipefail", "-c"]

  /// True for the shells a command with no shell syntax may skip (exec'd directly, as the
  /// shell would): a custom argv (`[ssh, host, sh, -c]`, `[python3, -c]`) always gets the script.
  package static func mayBypass(_ shell: [String]) -> Bool {
    shell == standard || shell == bash || shell == zsh
  }

  /// True for a POSIX shell whose last flags hold `c` (`-c`, `-cu`, `-ec`): the word after the script is its
  /// `$0`. Another program (`[python3, -c]`, `[ssh, host, sh, -c]`) gets no word it did not ask for.
  package static func takesName(_ shell: [String]) -> Bool {
    // The three shells a task names (`sh`, `bash`, `zsh`) take it: answered without splitting
    // strings per command (their arrays compare by identity first).
    if mayBypass(shell) { return true }
    guard let program = shell.first?.split(separator: "/").last, let last = shell.last, shell.count > 1 else {
      return false
    }
    return ["sh", "bash", "zsh", "dash", "ksh"].contains(String(program)) && last.hasPrefix("-")
      && !last.hasPrefix("--") && last.dropFirst().allSatisfy(\.isLetter) && last.contains("c")
  }

  /// The argv a `shell:` value names: `bash`, `sh`, or a list such as `[bash, -eo, pipefail, -c]`.
  package static func named(_ name: String) -> [String]? {
    switch name {
    case "bash": return bash
    case "sh": return standard
    case "zsh": return zsh
    default: return nil
    }
  }
}
