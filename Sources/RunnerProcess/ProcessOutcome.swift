/// How a child process ended.
package enum ProcessOutcome: Sendable, Equatable, CustomStringConvertible {
  case exited(Int32)
  case signaled(Int32)

  /// Whether the process exited with status 0.
  package var isSuccess: Bool { self == .exited(0) }

  package var description: String {
    switch self {
    case .exited(let code):
      return "exit code \(code)"
    case .signaled(let signal):
      if let name = Self.signalNames[signal] { return "signal \(signal) (\(name))" }
      return "signal \(signal)"
    }
  }

  /// Linux numbering (x86_64 and arm64 agree on these).
  private static let signalNames: [Int32: String] = [
    1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE",
    9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM",
    16: "SIGSTKFLT", 17: "SIGCHLD", 18: "SIGCONT", 19: "SIGSTOP", 20: "SIGTSTP", 21: "SIGTTIN", 22: "SIGTTOU",
    23: "SIGURG", 24: "SIGXCPU", 25: "SIGXFSZ", 26: "SIGVTALRM", 27: "SIGPROF", 28: "SIGWINCH", 29: "SIGIO",
    30: "SIGPWR", 31: "SIGSYS",
  ]
}
