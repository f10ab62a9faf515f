import Foundation

/// A scratch directory with task files in it, and the built binary run inside it.
struct TaskFileProject {
  let directory: URL

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-tf-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  init(_ tasks: String) throws {
    try self.init()
    try write("tasks.yml", tasks)
  }

  func write(_ name: String, _ text: String) throws {
    let url = directory.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try text.write(to: url, atomically: false, encoding: .utf8)
  }

  func read(_ name: String) -> String? {
    try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
  }

  func run(_ arguments: String..., environment: [String: String] = [:]) throws -> BinaryRunner.Output {
    try run(arguments, environment: environment)
  }

  func run(_ arguments: [String], environment: [String: String] = [:]) throws -> BinaryRunner.Output {
    try BinaryRunner.run(arguments, in: directory, environment: environment)
  }

  /// Runs `script` with `/bin/sh -c` in the project, `$RUNNER` naming the binary (for limits
  /// set with `ulimit` and runs bounded with `timeout`); returns what it printed on stdout.
  func shell(_ script: String) throws -> String {
    try Self.shell(script, in: directory)
  }

  /// `shell(_:)` in any directory.
  static func shell(_ script: String, in directory: URL) throws -> String {
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/sh")
    shell.arguments = ["-c", script]
    shell.currentDirectoryURL = directory
    shell.environment = ProcessInfo.processInfo.environment.merging(["RUNNER": BinaryRunner.executable.path]) { $1 }
    let out = Pipe()
    shell.standardOutput = out
    try shell.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    shell.waitUntilExit()
    return text
  }

  func remove() { try? FileManager.default.removeItem(at: directory) }
}
