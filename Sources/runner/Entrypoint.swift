import ArgumentParser
import Glibc
import RunnerKit

/// The executable: parse arguments, run, and turn every outcome into a documented exit code.
///
/// Exit codes: 0 success; 1 a task failed; 2 invalid task file or usage; 130/143 interrupted
/// by SIGINT/SIGTERM.
@main
enum Entrypoint {
  static func main() async {
    // A closed stdout (`runner … | head -1`) must surface as EPIPE, not kill runner mid-run.
    signal(SIGPIPE, SIG_IGN)
    Runner.noteSignalsAtStart()
    if let problem = Runner.startProblem() {
      Runner.write("error: \(problem)\n", to: 2)
      exit(Runner.usageExitCode)
    }
    // The allocator tuned; hundreds of tasks at once need a few descriptors each (children get
    // the old limit back).
    Runner.prepareProcess()
    // A parent may start runner with signals blocked (Foundation's Process does, from a
    // Dispatch thread); Ctrl-C and SIGTERM must still reach us. Threads started later inherit this.
    var wanted = sigset_t()
    sigemptyset(&wanted)
    for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD] { sigaddset(&wanted, number) }
    sigprocmask(SIG_UNBLOCK, &wanted, nil)
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.first == "lsp" {
      // Editors start a server with `--stdio`; it is the only transport.
      guard arguments.dropFirst().allSatisfy({ $0 == "--stdio" }) else {
        Runner.write("usage: runner lsp [--stdio]   (a language server on stdin and stdout)\n", to: 2)
        exit(Runner.usageExitCode)
      }
      exit(Runner.languageServer())
    }
    if arguments.first == "import" {
      do {
        let command = try ImportCommand.parse(Array(arguments.dropFirst()))
        exit(command.execute())
      } catch {
        exit(usageExitCode(for: error, of: ImportCommand.self))
      }
    }
    let command: RunnerCommand
    let split = RunnerCommand.splitArguments(Array(CommandLine.arguments.dropFirst()))
    let (parsed, affectedRef) = RunnerCommand.affectedRef(split.parsed)
    let words = (parsed: parsed, task: split.task)
    if let script = completionScript(words.parsed) {
      Runner.write(script + "\n", to: 1)
      exit(0)
    }
    do {
      command = try RunnerCommand.parse(words.parsed)
    } catch {
      exit(usageExitCode(for: error))
    }
    let (code, runner) = await command.execute(taskArguments: words.task, affectedRef: affectedRef)
    // Exit with what the run loaded still referenced: the kernel drops it at once.
    withExtendedLifetime(runner) { exit(code) }
  }

  /// The mended completion script (`CompletionScript`) when the words ask for one.
  static func completionScript(_ words: [String]) -> String? {
    let flag = "--generate-completion-script"
    for (index, word) in words.enumerated() {
      if word.hasPrefix(flag + "=") { return CompletionScript.text(for: String(word.dropFirst(flag.count + 1))) }
      if word == flag, index + 1 < words.count { return CompletionScript.text(for: words[index + 1]) }
    }
    return nil
  }

  /// Help and version exit 0; every other parsing problem is a usage error: exit 2 (not 64).
  static func usageExitCode<Command: ParsableCommand>(
    for error: any Error, of command: Command.Type = RunnerCommand.self
  ) -> Int32 {
    let code = Command.exitCode(for: error).rawValue
    let message = Command.fullMessage(for: error)
    if code == 0 {
      Runner.write(message + "\n", to: 1)
      return 0
    }
    Runner.write("error: " + message.replacingPrefix("Error: ") + "\n", to: 2)
    return Runner.usageExitCode
  }
}

extension String {
  func replacingPrefix(_ prefix: String) -> String {
    hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
  }
}
