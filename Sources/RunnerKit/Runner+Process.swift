import Glibc
import RunnerBasics
import RunnerModel
import RunnerProcess

extension Runner {
  /// Call once at start, before any thread: bounds the allocator's arenas for a process of many
  /// threads, and raises the soft limit on open files to the hard one.
  public static func prepareProcess() {
    Kernel.tuneAllocator()
    Kernel.raiseDescriptorLimit()
  }
}

extension Runner {
  /// The exit code of a usage error, an invalid task file or a start that cannot be made.
  public static var usageExitCode: Int32 { ExitStatus.usage }

  /// Writes `text` to file descriptor 1 or 2 whole.
  public static func write(_ text: String, to descriptor: Int32) {
    Terminal.write(text, to: descriptor)
  }

  /// Writes `bytes` to file descriptor 1 or 2 whole.
  public static func write(_ bytes: [UInt8], to descriptor: Int32) {
    bytes.withUnsafeBufferPointer { Terminal.write($0, to: descriptor) }
  }

  /// Says an error as every error is said (on stderr) and returns the usage exit code.
  public static func fail(_ text: String) -> Int32 {
    DiagnosticPrinter().print([Diagnostic(.error, text)])
    return ExitStatus.usage
  }

  /// `-C DIR`, then `RUNNER_INVOCATION_DIR` (where runner was started, or DIR).
  ///
  /// - Returns: nil, or the problem (said by the caller).
  public static func enter(directory: String?) -> String? {
    if let directory, chdir(directory) != 0 {
      return "-C: cannot enter '\(directory)': \(FileReader.describe(errno))"
    }
    // Before anything reads the environment (`ProcessEnvironment` reads it once): every task
    // inherits it, and a runner a task starts sets its own.
    setenv("RUNNER_INVOCATION_DIR", FilePath.canonical("."), 1)
    return nil
  }
}
