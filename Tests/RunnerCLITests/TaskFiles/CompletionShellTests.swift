import Foundation
import Testing

/// Issue 19, point 2: the completion scripts in the real shells (bash; zsh and fish when
/// installed, which `.ci/run` does; otherwise these tests are reported as skipped).
@Suite struct CompletionShellTests {
  static func installed(_ shell: String) -> Bool {
    ["/usr/bin/", "/bin/", "/usr/local/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + shell) }
  }

  static let tasks = "tasks:\n  setup: 'true'\n  web:serve: 'true'\n  web:build: 'true'\n"

  /// A project with the script for `shell` in `script` and `$RUNNER`'s folder first on PATH
  /// (the scripts call `runner` by name).
  func project(_ shell: String, script: String) throws -> TaskFileProject {
    let project = try TaskFileProject(Self.tasks)
    try project.write("proj.yml", Self.tasks)
    _ = try project.shell("\"$RUNNER\" --generate-completion-script \(shell) > \(script)")
    return project
  }

  static let path = "PATH=\"$(dirname \"$RUNNER\"):$PATH\""

  /// bash splits `web:s` at ':'; the completion still ends the whole word.
  @Test func bashCompletesNamesWithColonsDescribeAndFiles() throws {
    let project = try project("bash", script: "comp.bash")
    defer { project.remove() }
    func complete(_ words: [String]) throws -> String {
      let line = words.joined(separator: " ").replacingOccurrences(of: " : ", with: ":")
      let array = words.map { "'\($0)'" }.joined(separator: " ")
      return try project.shell(
        """
        \(Self.path) bash -c 'source comp.bash
          COMP_LINE="$0"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(\(array.replacingOccurrences(of: "'", with: "\""))); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
          _runner_whole_word runner "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
          printf "%s\\n" "${COMPREPLY[@]}" | sort' '\(line)'
        """)
    }
    #expect(try complete(["runner", "web", ":", "s"]) == "serve\n")
    #expect(try complete(["runner", "s"]) == "setup\n")
    #expect(try complete(["runner", "--describe", "web", ":", "b"]) == "build\n")
    #expect(try complete(["runner", "--junit", "pro"]).contains("proj.yml"))
  }

  /// What the task file offers is matched as text: through `compgen -W` a param choice holding
  /// `$(…)` ran on Tab. And `mode=<Tab>` completes the value (bash splits at '=').
  @Test func bashNeverRunsWhatTheTaskFileOffers() throws {
    let project = try TaskFileProject(
      "params:\n  mode: {default: debug, choices: [debug, '$(touch pwned)']}\ntasks:\n  setup: 'true'\n")
    defer { project.remove() }
    _ = try project.shell("\"$RUNNER\" --generate-completion-script bash > comp.bash")
    let out = try project.shell(
      """
      \(Self.path) bash -c 'source comp.bash
        COMP_LINE="runner mode="; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(runner mode =); COMP_CWORD=2
        _runner_whole_word runner = mode; printf "%s\\n" "${COMPREPLY[@]}"
        COMPREPLY=(); COMP_LINE="runner "; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(runner ""); COMP_CWORD=1
        _runner_whole_word runner "" runner > /dev/null'
      test -e pwned && echo RAN
      """)
    #expect(!out.contains("RAN"), "\(out)")
    #expect(out.contains("debug\n"), "\(out)")
  }

  @Test(.enabled(if: installed("fish"))) func fishCompletesNamesDescribeAndFiles() throws {
    let project = try project("fish", script: "runner.fish")
    defer { project.remove() }
    let out = try project.shell(
      """
      \(Self.path) HOME="$PWD" fish -i -c 'source runner.fish
        complete -C "runner web:s"; echo ---; complete -C "runner --describe web:"; echo ---
        complete -C "runner --trace pro"' 2>&1
      """)
    let parts = out.components(separatedBy: "---\n")
    #expect(parts.count == 3, "\(out)")
    #expect(parts.first == "web:serve\n", "\(out)")
    #expect(
      parts.dropFirst().first?.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) } == [
        "web:build", "web:serve",
      ])
    #expect(parts.last?.contains("proj.yml") == true, "\(out)")
  }

  /// Driven through a pseudo-terminal (`zpty`), as a person types: before, every Tab printed
  /// `_arguments:comparguments:327: doubled rest argument definition`.
  @Test(.enabled(if: installed("zsh"))) func zshCompletesWithoutErrors() throws {
    let project = try project("zsh", script: "_runner")
    defer { project.remove() }
    try project.write(
      "drive.zsh",
      """
      zmodload zsh/zpty
      out=''
      # Waits (20 s at most) until the terminal has shown $1: no fixed pause to outlast a busy machine.
      wait_for() {
        local deadline=$(( SECONDS + 20 ))
        while (( SECONDS < deadline )); do
          while zpty -r -t z chunk; do out+=$chunk; done
          [[ $out == *$1* ]] && return 0
          sleep 0.05
        done
        return 1
      }
      zpty z zsh -f -i
      zpty -w z "PS1='> '; fpath=($PWD \\$fpath); autoload -Uz compinit; compinit -u -D; path=($BIN \\$path); print READY\\$((6*7))"
      wait_for READY42
      zpty -w -n z $'runner --describe web:s\\t'
      wait_for 'web:serve'
      zpty -w -n z $'\\C-e\\C-u'
      zpty -w z 'exit'
      while zpty -r -t z chunk; do out+=$chunk; done
      print -rn -- "$out"
      zpty -d z
      """)
    let out = try project.shell("BIN=\"$(dirname \"$RUNNER\")\" timeout 30 zsh -f drive.zsh 2>&1")
    #expect(!out.contains("doubled rest"), "\(out)")
    #expect(out.contains("runner --describe web:serve"), "\(out)")
  }
}
