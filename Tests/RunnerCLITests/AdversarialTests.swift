import Foundation
import Testing

/// The built binary against hostile task files, commands, outputs and environments.
///
/// Each case is a task file (written, or generated at test time when it is large), the
/// arguments, the exit status and a fragment the named stream must contain. The golden
/// fixtures in `Fixtures/error-*` cover the malformed-YAML and schema cases; this table covers
/// what needs a large or generated file or a real run.
@Suite struct AdversarialTests {
  enum Stream: Sendable { case stdout, stderr }

  struct Case: Sendable, CustomStringConvertible {
    var name: String
    var taskFile: @Sendable () -> String
    var arguments: [String] = ["**"]
    var status: Int32
    var fragment: String
    var stream: Stream = .stdout
    /// When set, runner runs inside `sh -c` with `$RUNNER` naming the binary; the script's own
    /// output is what is checked (for pipes and resource limits).
    var shell: String? = nil
    var description: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "unicode task names",
      taskFile: { "tasks:\n  übersetzen: echo ü\n  構築: {deps: [übersetzen], run: echo 構築}\n" },
      status: 0, fragment: "✓ 構築"),
    Case(
      name: "a 200-character name runs", taskFile: { "tasks:\n  \(String(repeating: "n", count: 200)): echo long\n" },
      status: 0, fragment: "| long"),
    Case(
      name: "a 201-character name is refused",
      taskFile: { "tasks:\n  \(String(repeating: "n", count: 201)): echo x\n" },
      status: 2, fragment: "invalid task name", stream: .stderr),
    Case(
      name: "a 20 MB task file loads", taskFile: { Self.bigTaskFile(megabytes: 20) },
      arguments: ["--list"], status: 0, fragment: "t99999"),
    Case(
      name: "deep flow nesting is a type error, not a stack overflow",
      taskFile: { "tasks:\n  a: {run: \(String(repeating: "[", count: 100_000))}\n" },
      status: 2, fragment: "collections nest deeper than 256 levels", stream: .stderr),
    Case(
      name: "deep block nesting", taskFile: { Self.deepBlockFile(depth: 2000) },
      status: 2, fragment: "tasks.yml:", stream: .stderr),
    Case(
      name: "anchors and merge keys",
      taskFile: {
        "tasks:\n  base: &common {run: 'echo \"from $WHO\"', env: {WHO: base}}\n"
          + "  derived:\n    <<: *common\n    env: {WHO: derived}\n    deps: [base]\n"
      }, status: 0, fragment: "derived | from derived"),
    Case(
      name: "a 2000-task cycle", taskFile: { Self.chain(2000, closed: true) },
      status: 2, fragment: "t1999", stream: .stderr),
    Case(
      name: "a 2000-task chain runs in order", taskFile: { Self.chain(2000, closed: false) },
      arguments: ["-n", "**"], status: 0, fragment: "t1999"),
    Case(
      name: "fan-in of 3000", taskFile: { Self.fan(3000, into: true) },
      arguments: ["-j8", "**"], status: 0, fragment: "3001 task(s): 3001 succeeded"),
    Case(
      name: "fan-out of 3000", taskFile: { Self.fan(3000, into: false) },
      arguments: ["-j8", "**"], status: 0, fragment: "3001 task(s): 3001 succeeded"),
    Case(
      name: "a working directory with spaces and quotes",
      taskFile: { "tasks:\n  a: {dir: \"my dir/it's \\\"q\\\"\", run: pwd}\n" },
      status: 0, fragment: "/my dir/it's \"q\"\n"),
    Case(
      name: "a missing working directory", taskFile: { "tasks:\n  a: {dir: nowhere, run: pwd}\n" },
      status: 1, fragment: "cannot change to working directory"),
    Case(
      name: "a working directory that is a file", taskFile: { "tasks:\n  a: {dir: tasks.yml, run: pwd}\n" },
      status: 1, fragment: "cannot change to working directory"),
    Case(
      name: "an unwritable working directory", taskFile: { "tasks:\n  a: {dir: /proc, run: echo x > f}\n" },
      status: 1, fragment: "cannot create f"),
    Case(
      name: "commands with quotes and newlines",
      taskFile: {
        "tasks:\n  a:\n    run: |\n      printf '%s|%s\\n' \"double \\\"q\\\"\" 'single \"x\"'\n"
          + "      echo \"two\n      lines\"\n"
      }, status: 0, fragment: "a | double \"q\"|single \"x\""),
    Case(
      name: "non-UTF-8 output", taskFile: { "tasks:\n  a: printf 'ok \\377\\376 bytes\\n'\n" },
      status: 0, fragment: "a | ok \u{FFFD}\u{FFFD} bytes"),
    Case(
      name: "100 MB of output",
      taskFile: { "tasks:\n  a: \"yes 0123456789012345678901234567890123456789 | head -c 100000000\"\n" },
      status: 0, fragment: "1 task(s): 1 succeeded",
      shell: "\"$RUNNER\" '**' | tail -c 200"),
    Case(
      name: "a task that closes stdout early",
      taskFile: { "tasks:\n  a: \"exec 1>&-; sleep 0.2; echo still here >&2\"\n" },
      status: 0, fragment: "a | still here"),
    Case(
      name: "a task that never exits times out", taskFile: { "tasks:\n  a: {run: sleep 300, timeout: 300ms}\n" },
      arguments: ["--grace", "200ms", "**"], status: 1, fragment: "timed out after 300ms"),
    Case(
      name: "a grandchild that ignores SIGTERM",
      taskFile: { "tasks:\n  a: {run: \"sh -c 'trap \\\"\\\" TERM; sleep 300' & sleep 300\", timeout: 300ms}\n" },
      arguments: ["--grace", "200ms", "**"], status: 1, fragment: "timed out after 300ms"),
    Case(
      name: "a task killed by SIGSEGV", taskFile: { "tasks:\n  a: \"kill -SEGV $$\"\n" },
      status: 1, fragment: "signal 11 (SIGSEGV)"),
    Case(
      name: "runner's stdout closed early",
      taskFile: { "tasks:\n  a: seq 1 200000\n  b: {deps: [a], run: echo after}\n" },
      status: 0, fragment: "head=▶ a\nrunner=0",
      shell: "{ \"$RUNNER\" '**'; echo $? > status; } | head -1 | sed 's/^/head=/'; echo runner=$(cat status)"),
    Case(
      name: "CR/LF in $RUNNER_OUTPUT",
      taskFile: {
        "tasks:\n  a: \"printf 'v=1\\\\r\\\\nw<<E\\\\r\\\\nx\\\\r\\\\nE\\\\r\\\\n' >> $RUNNER_OUTPUT\"\n"
          + "  b: {deps: [a], env: {V: '${{ deps.a.outputs.v }}', W: '${{ deps.a.outputs.w }}'}, run: \"printf '[%s][%s]\\\\n' \\\"$V\\\" \\\"$W\\\"\"}\n"
      }, status: 0, fragment: "b | [1][x]"),
    Case(
      name: "shell injection through an output value stays data",
      taskFile: {
        "tasks:\n  a: \"echo 'v=$(touch pwned); echo injected' >> $RUNNER_OUTPUT\"\n"
          + "  b: {deps: [a], env: {V: '${{ deps.a.outputs.v }}'}, run: 'printf \"%s\\n\" \"$V\"; test ! -e pwned'}\n"
      }, status: 0, fragment: "b | $(touch pwned); echo injected"),
    Case(
      name: "a heredoc value cannot smuggle a second key",
      taskFile: {
        "tasks:\n  a: \"printf 'v<<END\\\\nw=evil\\\\nEND\\\\n' >> $RUNNER_OUTPUT\"\n"
          + "  b: {deps: [a], env: {V: '${{ deps.a.outputs.v }}'}, run: 'echo \"[$V]\"'}\n"
      }, status: 0, fragment: "b | [w=evil]"),
    Case(
      name: "an invalid output name fails the task",
      taskFile: { "tasks:\n  a: \"echo 'bad key=1' >> $RUNNER_OUTPUT\"\n" },
      status: 1, fragment: "invalid output name 'bad key'"),
    Case(
      name: "an unterminated heredoc fails the task",
      taskFile: { "tasks:\n  a: \"printf 'v<<END\\\\nno end\\\\n' >> $RUNNER_OUTPUT\"\n" },
      status: 1, fragment: "is never closed by a line 'END'"),
    Case(
      name: "a disk-full image save",
      taskFile: {
        "tasks:\n  big:\n    image:\n      - load: \(BinaryRunner.packageRoot.path)/examples/images/harbour.png\n"
          + "      - save: out.png\n"
      }, status: 1, fragment: "big", shell: "ulimit -f 1; \"$RUNNER\" '**' 2>&1; echo status=$?"),
  ]

  @Test(arguments: cases)
  func adversarial(_ testCase: Case) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-adv-\(UUID().uuidString)")
    try FileManager.default.createDirectory(
      at: directory.appendingPathComponent("my dir/it's \"q\""), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data(testCase.taskFile().utf8).write(to: directory.appendingPathComponent("tasks.yml"))
    if let script = testCase.shell {
      let text = try Self.shell(script, in: directory)
      #expect(text.contains(testCase.fragment), "\(testCase.name): \(text.suffix(2000))")
      if testCase.name.contains("disk-full") {
        #expect(text.contains("status=1"), "\(text.suffix(2000))")
      }
      return
    }
    let output = try BinaryRunner.run(testCase.arguments, in: directory)
    let text = testCase.stream == .stdout ? output.stdout : output.stderr
    #expect(output.status == testCase.status, "\(testCase.name): \(output.stderr.suffix(2000))")
    #expect(text.contains(testCase.fragment), "\(testCase.name): \(text.suffix(2000))")
  }

  /// Runs `script` under `sh -c` with `$RUNNER` naming the binary; returns stdout and stderr.
  static func shell(_ script: String, in directory: URL) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", script]
    process.currentDirectoryURL = directory
    var environment = ProcessInfo.processInfo.environment
    environment["RUNNER"] = BinaryRunner.executable.path
    environment["NO_COLOR"] = "1"
    environment.removeValue(forKey: "GITHUB_ACTIONS")
    process.environment = environment
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }

  /// About `megabytes` MB of task file: 100 000 tasks with long descriptions and a few deps each.
  static func bigTaskFile(megabytes: Int) -> String {
    let count = 100_000
    let padding = String(repeating: "x", count: megabytes * 1_000_000 / count - 60)
    var text = "tasks:\n"
    text.reserveCapacity(megabytes * 1_100_000)
    for index in 0..<count {
      text += "  t\(index): {desc: \(padding), deps: [\(index == 0 ? "" : "t\(index - 1)")], run: 'true'}\n"
    }
    return text
  }

  static func deepBlockFile(depth: Int) -> String {
    var text = "tasks:\n  a:\n    env:\n"
    for level in 0..<depth { text += String(repeating: " ", count: 6 + level) + "k:\n" }
    return text
  }

  static func chain(_ count: Int, closed: Bool) -> String {
    var text = "tasks:\n"
    for index in 0..<count {
      let dep = index == 0 ? (closed ? "t\(count - 1)" : "") : "t\(index - 1)"
      text += "  t\(index): {deps: [\(dep)], run: 'true'}\n"
    }
    return text
  }

  static func fan(_ count: Int, into: Bool) -> String {
    var text = "tasks:\n"
    if into {
      text += "  hub: {deps: [\((0..<count).map { "t\($0)" }.joined(separator: ", "))], run: 'true'}\n"
      for index in 0..<count { text += "  t\(index): 'true'\n" }
    } else {
      text += "  hub: 'true'\n"
      for index in 0..<count { text += "  t\(index): {deps: [hub], run: 'true'}\n" }
    }
    return text
  }
}
