import Foundation

/// Runs the built `runner` binary as a user would and captures what it prints.
struct BinaryRunner {
  struct Output {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// The `runner` binary next to the test bundle (SwiftPM builds both into one directory).
  static let executable: URL = {
    let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var directory = exe.deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = directory.appendingPathComponent("runner")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      directory = directory.deletingLastPathComponent()
    }
    return exe.deletingLastPathComponent().appendingPathComponent("runner")
  }()

  /// The package's source root, for fixtures and examples.
  static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// - Parameters:
  ///   - deadline: kill runner (SIGKILL, status 137 then) if it has not ended by then.
  ///   - unsetting: variables of the test's environment runner does not get.
  ///   - program: what to run instead of runner (make, to run runner under it).
  static func run(
    _ arguments: [String], in directory: URL, environment: [String: String] = [:], stdin: String? = nil,
    deadline: Duration? = nil, unsetting: [String] = [], program: String? = nil
  ) throws -> Output {
    let process = Process()
    process.executableURL = program.map { URL(fileURLWithPath: $0) } ?? executable
    process.arguments = arguments
    process.currentDirectoryURL = directory
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = "1"
    env.removeValue(forKey: "CLICOLOR_FORCE")
    env.removeValue(forKey: "GITHUB_ACTIONS")
    // `make test` would make runner a client of make's jobserver.
    for name in ["MAKEFLAGS", "MFLAGS", "MAKELEVEL"] { env.removeValue(forKey: name) }
    // A job that signs its own cache must not make the tests' writers sign.
    for name in ["RUNNER_REMOTE_SIGNING_KEY", "RUNNER_REMOTE_TRUST"] { env.removeValue(forKey: name) }
    for (key, value) in environment { env[key] = value }
    for key in unsetting { env.removeValue(forKey: key) }
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let ended = ExitFlag()
    if let deadline {
      let pid = process.processIdentifier
      DispatchQueue.global().asyncAfter(deadline: .now() + Double(deadline.components.seconds)) {
        ended.lock.withLock { if !ended.done { kill(pid, SIGKILL) } }
      }
    }
    // Read both pipes concurrently so a large output cannot block the child; the semaphore
    // orders the reader's write of `errBox` before the read below.
    let errBox = DataBox()
    let done = DispatchSemaphore(value: 0)
    Thread {
      errBox.data = err.fileHandleForReading.readDataToEndOfFile()
      done.signal()
    }.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    ended.lock.withLock { ended.done = true }
    done.wait()
    let errData = errBox.data
    return Output(
      status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData, as: UTF8.self))
  }
}

/// Whether the child has ended, for the deadline's timer (read and written under `lock`).
final class ExitFlag: @unchecked Sendable {
  let lock = NSLock()
  var done = false
}

/// Carries bytes from the stderr reader thread; access is ordered by a semaphore.
final class DataBox: @unchecked Sendable {
  var data = Data()
}
