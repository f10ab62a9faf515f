import Foundation
import Testing

/// The remote cache through the built binary, against the servers `.ci/remote-servers.sh`
/// starts (buildbox-casd, BuildGrid, nginx plain, over TLS and behind a token): a second
/// checkout elsewhere is all remote hits with the same bytes; every fault is a warning, a
/// correct build and exit 0, in bounded time.
@Suite(
  .enabled(
    if: ProcessInfo.processInfo.environment["RUNNER_TEST_CASD"] != nil,
    "no remote servers named (.ci/remote-servers.sh start DIR)"))
struct RemoteCacheTests {
  static let servers = [
    "RUNNER_TEST_CASD", "RUNNER_TEST_BUILDGRID", "RUNNER_TEST_HTTP_CACHE", "RUNNER_TEST_HTTPS_CACHE",
  ]
  /// Long enough for a loaded test machine; a hang still ends the test.
  static let deadline = Duration.seconds(300)

  static func server(_ name: String) -> String { ProcessInfo.processInfo.environment[name]! }

  /// `count` tasks in layers of 20, each writing one file from the seed and its two
  /// dependencies' files, and handing on a value.
  static func graph(_ count: Int) -> String {
    var text = "default: [\((0..<count).map { "t\($0)" }.joined(separator: ", "))]\ntasks:\n"
    for index in 0..<count {
      let layer = index / 20
      let deps = layer == 0 ? [] : [index - 20, (layer - 1) * 20 + (index + 7) % 20]
      let reads = deps.map { " out/t\($0).txt" }.joined()
      text += "  t\(index):\n"
      text += "    run: mkdir -p out && { echo \(index); cat src/seed.txt\(reads); } > out/t\(index).txt"
      text += " && echo n=\(index) >> $RUNNER_OUTPUT && echo made \(index)\n"
      text += "    sources: [src/seed.txt]\n    outputs: [out/t\(index).txt]\n"
      if !deps.isEmpty { text += "    deps: [\(deps.map { "t\($0)" }.joined(separator: ", "))]\n" }
    }
    return text
  }

  /// A checkout of the generated graph; the seed makes its keys new to the servers.
  func checkout(_ count: Int, seed: String) throws -> TaskFileProject {
    let project = try TaskFileProject(Self.graph(count))
    try project.write("src/seed.txt", seed + "\n")
    return project
  }

  func run(_ project: TaskFileProject, _ arguments: [String], environment: [String: String] = [:]) throws
    -> BinaryRunner.Output
  {
    let events = project.directory.appendingPathComponent("events.jsonl").path
    var words = ["--events", events, "-j", "8"] + arguments
    if let ca = ProcessInfo.processInfo.environment["RUNNER_TEST_HTTPS_CA"] { words += ["--remote-ca", ca] }
    return try BinaryRunner.run(words, in: project.directory, environment: environment, deadline: Self.deadline)
  }

  /// Each task's reason on `succeeded`, by name.
  func reasons(_ project: TaskFileProject) throws -> [String: String] {
    var reasons: [String: String] = [:]
    for line in (project.read("events.jsonl") ?? "").split(separator: "\n") {
      let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      if event["state"] as? String == "succeeded", let task = event["task"] as? String {
        reasons[task] = event["reason"] as? String
      }
    }
    return reasons
  }

  @Test(arguments: servers)
  func aSecondCheckoutIsAllRemoteHitsWithTheSameBytes(server: String) throws {
    let seed = UUID().uuidString
    let (first, second) = (try checkout(200, seed: seed), try checkout(200, seed: seed))
    defer { first.remove() }
    defer { second.remove() }
    let url = Self.server(server)
    let cold = try run(first, ["--remote-cache", url])
    #expect(cold.status == 0, "\(cold.stderr)")
    #expect(cold.stderr.contains("0 hits, 200 misses, 200 stored"), "\(cold.stderr)")
    let warm = try run(second, ["--remote-cache", url], environment: ["HOME": "/nonexistent", "USER": "other"])
    #expect(warm.status == 0, "\(warm.stderr)")
    #expect(warm.stderr.contains("200 hits, 0 misses, 0 stored"), "\(warm.stderr)")
    let reasons = try reasons(second)
    #expect(reasons.count == 200 && reasons.values.allSatisfy { $0 == "restored from remote cache" })
    #expect(warm.stdout.contains("| made 0\n"), "the log is replayed")
    for index in 0..<200 {
      let name = "out/t\(index).txt"
      #expect(second.read(name) != nil && second.read(name) == first.read(name), "\(name)")
    }
  }

  /// Two checkouts of examples/remote-cache with one new seed (keys no server has seen).
  static func exampleCheckouts() throws -> [TaskFileProject] {
    let example = BinaryRunner.packageRoot.appendingPathComponent("examples/remote-cache")
    let seed = UUID().uuidString
    return try (0..<2).map { _ in
      let project = try TaskFileProject()
      for name in ["tasks.yml", "src/lines.txt"] {
        try project.write(name, String(contentsOf: example.appendingPathComponent(name), encoding: .utf8))
      }
      try project.write("src/seed.txt", seed)
      return project
    }
  }

  /// examples/remote-cache in two checkouts: the second restores all three tasks.
  @Test func theExampleIsAllRemoteHitsInASecondCheckout() throws {
    let checkouts = try Self.exampleCheckouts()
    defer { checkouts.forEach { $0.remove() } }
    let url = Self.server("RUNNER_TEST_CASD")
    let first = try run(checkouts[0], ["--remote-cache", url])
    #expect(first.status == 0 && first.stderr.contains("0 hits, 3 misses, 3 stored"), "\(first.stderr)")
    let second = try run(checkouts[1], ["--remote-cache", url])
    #expect(second.status == 0 && second.stderr.contains("3 hits, 0 misses, 0 stored"), "\(second.stderr)")
    #expect(second.stdout.contains("✓ package restored from remote cache"), "\(second.stdout)")
    for name in ["dist/hello", "dist/test-output.txt", "dist/hello.tar"] {
      let bytes = try Data(contentsOf: checkouts[1].directory.appendingPathComponent(name))
      #expect(bytes == (try Data(contentsOf: checkouts[0].directory.appendingPathComponent(name))), "\(name)")
    }
    let mode =
      try FileManager.default.attributesOfItem(
        atPath: checkouts[1].directory.appendingPathComponent("dist/hello").path)[.posixPermissions] as? Int
    #expect(mode.map { $0 & 0o100 != 0 } == true, "the executable bit comes back")
  }

  /// A task with a depfile, in a checkout with no state: found by the files a run elsewhere
  /// stored as its path set, hashed here; a header edited here is a miss, and it runs.
  @Test func aDepfileTaskIsFoundInAFreshCheckoutByItsPathSet() throws {
    let seed = UUID().uuidString
    let tasks = """
      tasks:
        gen:
          run: |
            cat src/a.txt inc/h.txt > out/a.txt
            echo 'out/a.txt: src/a.txt inc/h.txt' > out/a.d
          sources: [src/a.txt]
          outputs: [out/a.txt]
          depfile: out/a.d

      """
    var checkouts: [TaskFileProject] = []
    defer { checkouts.forEach { $0.remove() } }
    for header in ["hello", "hello", "bye"] {
      let project = try TaskFileProject(tasks)
      checkouts.append(project)
      try project.write("src/a.txt", seed + "\n")
      try project.write("inc/h.txt", header + "\n")
      try project.write("out/.keep", "")
    }
    let url = Self.server("RUNNER_TEST_HTTP_CACHE")
    let first = try run(checkouts[0], ["gen", "--remote-cache", url])
    #expect(first.status == 0 && !first.stdout.contains("restored"), "\(first.stdout)\(first.stderr)")
    let second = try run(checkouts[1], ["gen", "--remote-cache", url])
    #expect(second.stdout.contains("✓ gen restored from remote cache"), "\(second.stdout)\(second.stderr)")
    #expect(checkouts[1].read("out/a.txt") == seed + "\nhello\n")
    let third = try run(checkouts[2], ["gen", "--remote-cache", url])
    #expect(third.status == 0 && !third.stdout.contains("restored"), "\(third.stdout)")
    #expect(checkouts[2].read("out/a.txt") == seed + "\nbye\n")
  }

  /// `remote:` in the file; `--remote-upload=false` reads and never stores.
  @Test func theFileNamesTheCacheAndUploadFalseStoresNothing() throws {
    let seed = UUID().uuidString
    let url = Self.server("RUNNER_TEST_HTTP_CACHE")
    let (reader, writer, late) = (try checkout(3, seed: seed), try checkout(3, seed: seed), try checkout(3, seed: seed))
    defer { [reader, writer, late].forEach { $0.remove() } }
    let readOnly = try run(reader, ["--remote-cache", url, "--remote-upload=false"])
    #expect(readOnly.status == 0 && readOnly.stderr.contains("0 hits, 3 misses, 0 stored"), "\(readOnly.stderr)")
    try writer.write("tasks.yml", "remote: { cache: '\(url)', timeout: 60s }\n" + Self.graph(3))
    let stored = try run(writer, [])
    #expect(stored.status == 0 && stored.stderr.contains("0 hits, 3 misses, 3 stored"), "\(stored.stderr)")
    let hits = try run(late, ["--remote-cache", url])
    #expect(hits.stderr.contains("3 hits, 0 misses, 0 stored"), "\(hits.stderr)")
  }

  /// A secret never travels: the log stored remotely is masked (a second checkout without the
  /// secret replays `***`), and a task whose output value holds one is not uploaded.
  @Test func secretsStayOnThisMachine() throws {
    let file = """
      secrets: [TOKEN]
      tasks:
        loud: { sources: [in.txt], run: 'echo "token $TOKEN"' }
        leaky: { sources: [in.txt], run: 'echo "t=$TOKEN" >> "$RUNNER_OUTPUT"' }
      """
    let (first, second) = (try TaskFileProject(file), try TaskFileProject(file))
    defer { [first, second].forEach { $0.remove() } }
    let content = UUID().uuidString
    for project in [first, second] { try project.write("in.txt", content) }
    let secret = "s3cret-\(UUID().uuidString)"
    let url = Self.server("RUNNER_TEST_CASD")
    let stored = try run(first, ["--remote-cache", url, "loud", "leaky"], environment: ["TOKEN": secret])
    #expect(stored.status == 0, "\(stored.stderr)")
    #expect(stored.stderr.contains("leaky: not uploaded: an output value holds a secret"), "\(stored.stderr)")
    #expect(stored.stderr.contains("0 hits, 2 misses, 1 stored"), "\(stored.stderr)")
    #expect(!(stored.stdout + stored.stderr).contains(secret))
    let fetched = try run(second, ["--remote-cache", url, "loud", "leaky"])
    #expect(fetched.stderr.contains("1 hit, 1 miss,"), "\(fetched.stderr)")
    #expect(try reasons(second)["loud"] == "restored from remote cache")
    #expect(fetched.stdout.contains("token ***"), "\(fetched.stdout)")
  }

  /// An output named by an absolute path has no place in an ActionResult: the task is not
  /// stored (nor counted as stored), and the run is as without a remote cache.
  @Test func aTaskWithAnAbsoluteOutputIsNotStored() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    let output = project.directory.appendingPathComponent("abs.txt").path
    try project.write(
      "tasks.yml",
      "tasks:\n  t:\n    run: echo \(UUID().uuidString) > \(output)\n    sources: [x]\n    outputs: [\(output)]\n")
    try project.write("x", "x")
    let run = try run(project, ["--remote-cache", Self.server("RUNNER_TEST_HTTP_CACHE"), "t"])
    #expect(run.status == 0 && run.stderr.contains("0 hits, 1 miss, 0 stored"), "\(run.stderr)")
    #expect(!run.stderr.contains("warning"), "\(run.stderr)")
  }

  /// Every fault: one warning, the build done locally and right, exit 0, in bounded time.
  func expectBuiltDespiteFault(_ output: BinaryRunner.Output, _ project: TaskFileProject, count: Int) {
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stderr.components(separatedBy: "warning: remote cache").count == 2, "\(output.stderr)")
    #expect(output.stderr.contains("turned off after a fault"), "\(output.stderr)")
    for index in 0..<count { #expect(project.read("out/t\(index).txt")?.hasPrefix("\(index)\n") == true) }
  }

  @Test func aServerDownAtTheStart() throws {
    let project = try checkout(5, seed: UUID().uuidString)
    defer { project.remove() }
    for url in ["grpc://127.0.0.1:\(try Self.closedPort())", "http://127.0.0.1:\(try Self.closedPort())/cache"] {
      try? FileManager.default.removeItem(at: project.directory.appendingPathComponent(".runner"))
      expectBuiltDespiteFault(try run(project, ["--remote-cache", url, "--remote-timeout", "3s"]), project, count: 5)
    }
  }

  @Test func aServerKilledMidRun() throws {
    let server = try FaultServer("die-after", "12")
    defer { server.stop() }
    let project = try checkout(40, seed: UUID().uuidString)
    defer { project.remove() }
    let output = try run(project, ["--remote-cache", "http://127.0.0.1:\(server.port)/cache", "-j", "2"])
    expectBuiltDespiteFault(output, project, count: 40)
  }

  @Test func aServerThatNeverAnswersCostsOneTimeout() throws {
    let server = try FaultServer("silent")
    defer { server.stop() }
    let project = try checkout(30, seed: UUID().uuidString)
    defer { project.remove() }
    for url in ["grpc://127.0.0.1:\(server.port)", "http://127.0.0.1:\(server.port)/cache"] {
      try? FileManager.default.removeItem(at: project.directory.appendingPathComponent(".runner"))
      let output = try run(project, ["--remote-cache", url, "--remote-timeout", "1s"])
      expectBuiltDespiteFault(output, project, count: 30)
      #expect(output.stderr.contains("0 hits, "), "\(output.stderr)")
    }
  }

  /// A blob replaced on the server by other bytes: that task runs (warned), the rest restore.
  @Test func aCorruptBlobIsAMissForItsTask() throws {
    let seed = UUID().uuidString
    let url = Self.server("RUNNER_TEST_HTTP_CACHE")
    let (first, second) = (try checkout(3, seed: seed), try checkout(3, seed: seed))
    defer { [first, second].forEach { $0.remove() } }
    #expect(try run(first, ["--remote-cache", url]).status == 0)
    let blob = try #require(first.read("out/t1.txt"))
    let hash = Self.sha256(blob)
    let put = try Self.curl(["-X", "PUT", "--data-binary", "not the output", "\(url)/cas/\(hash)"])
    #expect(put == 0 || put == 22)
    let output = try run(second, ["--remote-cache", url])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stderr.contains("with bytes of another digest; running it"), "\(output.stderr)")
    #expect(output.stderr.contains("2 hits, 1 miss,"), "\(output.stderr)")
    #expect(second.read("out/t1.txt") == blob)
    #expect(try reasons(second)["t1"] != "restored from remote cache", "t1 ran")
  }

  /// nginx answers 401 to another token: a warning that names no secret; the right one, from
  /// RUNNER_REMOTE_HEADERS, stores.
  @Test func aWrongTokenIsAWarningAndTheRightOneStores() throws {
    let environment = ProcessInfo.processInfo.environment
    let url = try #require(environment["RUNNER_TEST_PRIVATE_CACHE"])
    let token = try #require(environment["RUNNER_TEST_PRIVATE_TOKEN"])
    let project = try checkout(4, seed: UUID().uuidString)
    defer { project.remove() }
    let wrong = try run(project, ["--remote-cache", url, "--remote-header", "Authorization: Bearer wrong-secret"])
    expectBuiltDespiteFault(wrong, project, count: 4)
    #expect(wrong.stderr.contains("401") && !wrong.stderr.contains("wrong-secret"), "\(wrong.stderr)")
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent(".runner"))
    let right = try run(
      project, ["--remote-cache", url], environment: ["RUNNER_REMOTE_HEADERS": "Authorization: Bearer \(token)"])
    #expect(right.status == 0 && right.stderr.contains("4 stored"), "\(right.stderr)")
    #expect(!right.stderr.contains(token) && !right.stdout.contains(token))
  }

  @Test func aMalformedAddressOrHeaderIsAUsageError() throws {
    let project = try checkout(1, seed: "x")
    defer { project.remove() }
    let address = try run(project, ["--remote-cache", "ftp://127.0.0.1:1"])
    #expect(address.status == 2 && address.stderr.contains("remote cache:"), "\(address.stderr)")
    let header = try run(project, ["--remote-cache", "http://127.0.0.1:1/c", "--remote-header", "Bearer secret"])
    #expect(header.status == 2 && !header.stderr.contains("secret"), "\(header.stderr)")
    try project.write("tasks.yml", "remote: { cache: 'localhost:9092' }\n" + Self.graph(1))
    let file = try run(project, [])
    #expect(file.status == 2 && file.stderr.contains("tasks.yml:1:18: error: 'cache' of 'remote'"), "\(file.stderr)")
  }

  static func closedPort() throws -> Int {
    let socket = LocalSocket(listening: false)
    socket.close()
    return socket.port
  }

  static func sha256(_ text: String) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sha256sum"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try? process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try? input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(String(decoding: data, as: UTF8.self).prefix(64))
  }

  static func curl(_ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["curl", "-sS", "--max-time", "30"] + arguments
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }
}

/// `Fixtures/remote/fault-server.py` in a mode: its port, and a kill at the end.
struct FaultServer {
  let process = Process()
  let port: Int

  init(_ arguments: String...) throws {
    let script = BinaryRunner.packageRoot.appendingPathComponent("Tests/RunnerCLITests/Fixtures/remote/fault-server.py")
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script.path] + arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
      let chunk = output.fileHandleForReading.availableData
      guard !chunk.isEmpty else { break }
      line.append(chunk)
    }
    port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    #expect(port > 0, "the fault server started")
  }

  func stop() {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }
}
