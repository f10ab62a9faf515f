import Foundation
import Testing

/// Signed results and trusted writers through the built binary, against the servers
/// `.ci/remote-servers.sh` starts: a reader with `remote.trust` restores what a trusted key
/// signed and runs, with one warning, what anyone else stored through the same server — a
/// poisoned result whose key is the task's own.
@Suite(
  .enabled(
    if: ProcessInfo.processInfo.environment["RUNNER_TEST_CASD"] != nil,
    "no remote servers named (.ci/remote-servers.sh start DIR)"))
struct RemoteTrustTests {
  /// One task whose output comes from a file its key does not cover: two checkouts that
  /// differ there have one key and different outputs, as a poisoned entry has.
  /// The task fails if it is handed where the signing key is.
  static let build = """
    default: [build]
    tasks:
      build:
        run: test -z "$RUNNER_REMOTE_SIGNING_KEY" && mkdir -p out && cat undeclared.txt > out/app.bin && echo built
        sources: [src/seed.txt]
        outputs: [out/app.bin]
        retries: 1
    """
  static let tasks = "remote:\n  trust: [keys/other.pub, keys/ci.pub]\n" + build

  /// Keys made for the run: `ci` and `other` (private and public), and `ci`'s id as openssl
  /// computes it.
  struct Keys {
    let directory: URL
    var ci: String { directory.appendingPathComponent("ci.pem").path }
    var other: String { directory.appendingPathComponent("other.pem").path }
    func id(_ name: String) throws -> String {
      try TaskFileProject.shell(
        "openssl pkey -in \(name).pem -pubout -outform DER | sha256sum | cut -c1-16", in: directory
      ).trimmingCharacters(in: .whitespacesAndNewlines)
    }
  }

  static func keys() throws -> Keys {
    let project = try TaskFileProject()
    _ = try project.shell(
      """
      for name in ci other; do
        openssl genpkey -algorithm ed25519 -out $name.pem 2>/dev/null && openssl pkey -in $name.pem -pubout -out $name.pub
      done
      """)
    #expect(project.read("ci.pub")?.contains("BEGIN PUBLIC KEY") == true, "openssl made no key")
    return Keys(directory: project.directory)
  }

  /// A checkout whose undeclared file says `content`, with the keys' public halves.
  static func checkout(seed: String, content: String, keys: Keys, trusting: Bool = true) throws -> TaskFileProject {
    let project = try TaskFileProject(trusting ? tasks : build)
    try project.write("src/seed.txt", seed + "\n")
    try project.write("undeclared.txt", content + "\n")
    for name in ["ci", "other"] {
      try project.write(
        "keys/\(name).pub", String(contentsOf: keys.directory.appendingPathComponent("\(name).pub"), encoding: .utf8))
    }
    return project
  }

  func run(
    _ project: TaskFileProject, _ server: String, environment: [String: String] = [:], _ extra: [String] = []
  ) throws -> BinaryRunner.Output {
    var words = ["--remote-cache", ProcessInfo.processInfo.environment[server]!] + extra
    words += ["--events", project.directory.appendingPathComponent("events.jsonl").path]
    words += ["--junit", project.directory.appendingPathComponent("report.xml").path]
    if let ca = ProcessInfo.processInfo.environment["RUNNER_TEST_HTTPS_CA"] { words += ["--remote-ca", ca] }
    return try BinaryRunner.run(words, in: project.directory, environment: environment, deadline: .seconds(300))
  }

  @Test(arguments: RemoteCacheTests.servers)
  func aTrustedReaderRestoresOnlyWhatATrustedKeySigned(server: String) throws {
    let keys = try Self.keys()
    defer { try? FileManager.default.removeItem(at: keys.directory) }
    var projects: [TaskFileProject] = []
    defer { projects.forEach { $0.remove() } }
    func checkout(_ seed: String, _ content: String, trusting: Bool = true) throws -> TaskFileProject {
      projects.append(try Self.checkout(seed: seed, content: content, keys: keys, trusting: trusting))
      return projects[projects.count - 1]
    }
    var outputs: [BinaryRunner.Output] = []

    // Signed by a trusted key: restored, by a reader trusting it among others (rotation).
    let seed = UUID().uuidString
    let writer = try checkout(seed, "good")
    let signed = try run(writer, server, environment: ["RUNNER_REMOTE_SIGNING_KEY": keys.ci])
    #expect(signed.status == 0 && signed.stderr.contains("0 hits, 1 miss, 1 stored"), "\(signed.stderr)")
    let reader = try checkout(seed, "a checkout whose own run would differ")
    let restored = try run(reader, server)
    #expect(restored.status == 0 && restored.stderr.contains("1 hit, 0 misses, 0 stored"), "\(restored.stderr)")
    #expect(reader.read("out/app.bin") == "good\n")
    outputs += [signed, restored]

    // Stored without a key through the same server (by a job that trusts nothing): a miss for
    // a trusted reader, which runs the task, gets its own bytes and, holding no key, stores
    // nothing; said once, as not signed.
    let poisonedSeed = UUID().uuidString
    let attacker = try checkout(poisonedSeed, "evil", trusting: false)
    let poisoned = try run(attacker, server)
    #expect(poisoned.status == 0 && poisoned.stderr.contains("1 stored"), "\(poisoned.stderr)")
    let victim = try checkout(poisonedSeed, "good")
    let refused = try run(victim, server)
    #expect(refused.status == 0, "\(refused.stderr)")
    #expect(refused.stderr.contains("0 hits, 1 miss (1 untrusted), 0 stored"), "\(refused.stderr)")
    #expect(refused.stderr.contains("holds a result for 'build' that is not signed, so it is not restored"))
    #expect(victim.read("out/app.bin") == "good\n")
    // A writer that names no trusted keys trusts its own: it does not restore the poisoned
    // result (and sign what it builds on it); it runs the task and stores its own, signed.
    let honest = try checkout(poisonedSeed, "good", trusting: false)
    let replaced = try run(honest, server, environment: ["RUNNER_REMOTE_SIGNING_KEY": keys.ci])
    #expect(replaced.stderr.contains("0 hits, 1 miss (1 untrusted), 1 stored"), "\(replaced.stderr)")
    #expect(honest.read("out/app.bin") == "good\n")
    let later = try checkout(poisonedSeed, "not this")
    let healed = try run(later, server)
    #expect(healed.stderr.contains("1 hit"), "\(healed.stderr)")
    #expect(later.read("out/app.bin") == "good\n")
    outputs += [poisoned, refused, replaced, healed]

    // Signed by a key the reader does not trust (RUNNER_REMOTE_TRUST replaces the file's
    // list, which names that key): a miss, said with the key's id.
    let otherSeed = UUID().uuidString
    let outsider = try checkout(otherSeed, "evil")
    let other = try run(outsider, server, environment: ["RUNNER_REMOTE_SIGNING_KEY": keys.other])
    #expect(other.status == 0, "\(other.stderr)")
    let careful = try checkout(otherSeed, "good")
    // Read-only: its own result must not replace the one the next reader restores.
    let onlyCI = try run(
      careful, server,
      environment: ["RUNNER_REMOTE_TRUST": careful.directory.appendingPathComponent("keys/ci.pub").path],
      ["--remote-upload=false"])
    #expect(onlyCI.status == 0, "\(onlyCI.stderr)")
    #expect(
      onlyCI.stderr.contains("holds a result for 'build' signed by key \(try keys.id("other")), which is not trusted"),
      "\(onlyCI.stderr)")
    #expect(careful.read("out/app.bin") == "good\n")
    // The file's list, which trusts that key too, restores it.
    let trusting = try checkout(otherSeed, "good")
    let rotated = try run(trusting, server)
    #expect(rotated.stderr.contains("1 hit"), "\(rotated.stderr)")
    #expect(trusting.read("out/app.bin") == "evil\n")
    outputs += [other, onlyCI, rotated]

    try Self.expectNoKey(keys, in: outputs, projects)
  }

  /// The private keys are found in no output, report, event or cache file, nor in what the
  /// servers that keep their data on disk (casd, nginx) were sent.
  static func expectNoKey(_ keys: Keys, in outputs: [BinaryRunner.Output], _ projects: [TaskFileProject]) throws {
    let secrets = try [keys.ci, keys.other].flatMap { path -> [String] in
      let pem = try String(contentsOfFile: path, encoding: .utf8)
      return pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
    }
    #expect(!secrets.isEmpty)
    let serverData = ProcessInfo.processInfo.environment["RUNNER_TEST_SERVER_DIR"]
    for place in ["casd/cas", "http/data/cache"] {
      #expect(serverData.map { FileManager.default.fileExists(atPath: "\($0)/\(place)") } != false, "no \(place)")
    }
    for secret in secrets {
      for output in outputs { #expect(!output.stdout.contains(secret) && !output.stderr.contains(secret)) }
      for project in projects {
        let found = try project.shell("grep -rlF -- '\(secret)' . || true")
        #expect(found.isEmpty, "the key is in \(found)")
      }
      if let serverData, let project = projects.first {
        let found = try project.shell("grep -rlF -- '\(secret)' '\(serverData)/casd' '\(serverData)/http/data' || true")
        #expect(found.isEmpty, "the key was uploaded: \(found)")
      }
    }
  }

  /// Remote execution's own cache of results is not signed: a reader that trusts keys sends
  /// its jobs with `skip_cache_lookup`, so a result an untrusted job left there is run again.
  @Test func aTrustedReaderDoesNotTakeTheExecutorsUnsignedCache() throws {
    let keys = try Self.keys()
    defer { try? FileManager.default.removeItem(at: keys.directory) }
    let casd = ProcessInfo.processInfo.environment["RUNNER_TEST_CASD"]!
    let task = """
      tasks:
        build:
          run: mkdir -p out && date +%s%N > out/app.bin
          sources: [src/seed.txt]
          outputs: [out/app.bin]
      """
    let seed = UUID().uuidString
    let untrusted = try TaskFileProject(task)
    let trusting = try TaskFileProject("remote:\n  trust: [keys/ci.pub]\n" + task)
    defer { [untrusted, trusting].forEach { $0.remove() } }
    for project in [untrusted, trusting] { try project.write("src/seed.txt", seed + "\n") }
    try trusting.write("keys/ci.pub", String(contentsOfFile: keys.directory.path + "/ci.pub", encoding: .utf8))
    let first = try BinaryRunner.run(
      ["--remote-exec", casd, "build"], in: untrusted.directory, deadline: .seconds(300))
    #expect(first.status == 0 && first.stderr.contains("1 executed, 0 from its cache"), "\(first.stderr)")
    let second = try BinaryRunner.run(
      ["--remote-exec", casd, "build"], in: trusting.directory, deadline: .seconds(300))
    #expect(second.status == 0, "\(second.stderr)")
    #expect(second.stderr.contains("0 hits, 1 miss (1 untrusted), 0 stored"), "\(second.stderr)")
    #expect(second.stderr.contains("1 executed, 0 from its cache"), "\(second.stderr)")
    #expect(trusting.read("out/app.bin") != nil && trusting.read("out/app.bin") != untrusted.read("out/app.bin"))
  }

  /// A task with calls is checked as a whole, when its last part ends: the output its first
  /// part wrote differs from the compromised result's, and the task fails.
  @Test func aTaskWithCallsIsCheckedWhenItsLastPartEnds() throws {
    let keys = try Self.keys()
    defer { try? FileManager.default.removeItem(at: keys.directory) }
    let casd = ProcessInfo.processInfo.environment["RUNNER_TEST_CASD"]!
    let task = """
      remote:
        trust: [keys/ci.pub]
      tasks:
        helper:
          run: echo helping
        build:
          sources: [src/seed.txt]
          outputs: [out/app.bin, out/note.txt]
          run:
            - mkdir -p out && cat undeclared.txt > out/app.bin
            - task: helper
            - echo "v=$(cat undeclared.txt)" >> "$RUNNER_OUTPUT" && echo same > out/note.txt
      """
    let seed = UUID().uuidString
    func checkout(_ content: String) throws -> TaskFileProject {
      let project = try TaskFileProject(task)
      try project.write("src/seed.txt", seed + "\n")
      try project.write("undeclared.txt", content + "\n")
      try project.write("keys/ci.pub", String(contentsOfFile: keys.directory.path + "/ci.pub", encoding: .utf8))
      return project
    }
    let projects = try [checkout("evil"), checkout("evil"), checkout("good")]
    defer { projects.forEach { $0.remove() } }
    let stored = try BinaryRunner.run(
      ["--remote-cache", casd, "build"], in: projects[0].directory,
      environment: ["RUNNER_REMOTE_SIGNING_KEY": keys.ci])
    #expect(stored.status == 0 && stored.stderr.contains("1 stored"), "\(stored.stdout)\n\(stored.stderr)")
    // The same bytes: the whole passes.
    let same = try BinaryRunner.run(["--remote-cache", casd, "--verify-cache=100", "build"], in: projects[1].directory)
    #expect(same.status == 0, "\(same.stdout)\n\(same.stderr)")
    #expect(same.stderr.contains("0 hits, 0 misses, 0 stored, 1 spot-checked (0 differed)"), "\(same.stderr)")
    #expect(same.stdout.contains("helping"), "the calls ran: \(same.stdout)")
    let caught = try BinaryRunner.run(
      ["--remote-cache", casd, "--verify-cache=100", "build"], in: projects[2].directory)
    #expect(caught.status == 1, "\(caught.stdout)\n\(caught.stderr)")
    #expect(
      caught.stdout.contains(
        "spot check failed: the remote cache's result (signed by key \(try keys.id("ci"))) differs from the run "
          + "here: 'out/app.bin' differs at byte offset 0; it was not restored (its action: "), "\(caught.stdout)")
    #expect(caught.stderr.contains("1 spot-checked (1 differed)"), "\(caught.stderr)")
    #expect(projects[2].read("out/app.bin") == "good\n")
  }

  /// An image task's result passes a spot check: its image and its saved file compared byte
  /// for byte.
  @Test func anImageTaskPassesASpotCheck() throws {
    let casd = ProcessInfo.processInfo.environment["RUNNER_TEST_CASD"]!
    let task = """
      tasks:
        gray:
          image:
            - load: in.png
            - resize: { width: \(Int.random(in: 2...64)) }
            - grayscale
            - save: out/gray.png
      """
    let png = try #require(
      Data(
        base64Encoded:
          "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="))
    let projects = try (0..<2).map { _ in try TaskFileProject(task) }
    defer { projects.forEach { $0.remove() } }
    for project in projects { try png.write(to: project.directory.appendingPathComponent("in.png")) }
    let stored = try BinaryRunner.run(["--remote-cache", casd, "gray"], in: projects[0].directory)
    #expect(stored.status == 0, "\(stored.stdout)\n\(stored.stderr)")
    let checked = try BinaryRunner.run(
      ["--remote-cache", casd, "--verify-cache=100", "gray"], in: projects[1].directory)
    #expect(checked.status == 0, "\(checked.stdout)\n\(checked.stderr)")
    #expect(checked.stderr.contains("0 hits, 0 misses, 0 stored, 1 spot-checked (0 differed)"), "\(checked.stderr)")
    let images = try projects.map { try Data(contentsOf: $0.directory.appendingPathComponent("out/gray.png")) }
    #expect(!images[1].isEmpty && images[1] == images[0])
  }

  /// A writer whose key is trusted but whose machine is compromised stores a result that
  /// differs from what the task builds: a trusted reader restores it, a spot check
  /// (`--verify-cache=100`) runs the task, fails it naming the key and the file, and keeps the
  /// bytes it made. An honest result passes the same check.
  @Test(arguments: RemoteCacheTests.servers)
  func aSpotCheckCatchesWhatACompromisedTrustedKeySigned(server: String) throws {
    let keys = try Self.keys()
    defer { try? FileManager.default.removeItem(at: keys.directory) }
    var projects: [TaskFileProject] = []
    defer { projects.forEach { $0.remove() } }
    func checkout(_ seed: String, _ content: String) throws -> TaskFileProject {
      projects.append(try Self.checkout(seed: seed, content: content, keys: keys))
      return projects[projects.count - 1]
    }
    let seed = UUID().uuidString
    let compromised = try checkout(seed, "evil")
    let stored = try run(compromised, server, environment: ["RUNNER_REMOTE_SIGNING_KEY": keys.ci])
    #expect(stored.status == 0 && stored.stderr.contains("1 stored"), "\(stored.stderr)")
    // Signed by a trusted key: without a check, restored.
    let trusting = try checkout(seed, "good")
    let fooled = try run(trusting, server)
    #expect(fooled.stderr.contains("1 hit"), "\(fooled.stderr)")
    #expect(trusting.read("out/app.bin") == "evil\n")

    let checking = try checkout(seed, "good")
    let caught = try run(checking, server, ["--verify-cache=100%"])
    #expect(caught.status == 1, "\(caught.stderr)")
    #expect(
      caught.stdout.contains(
        "✗ build (tasks.yml:5:3): spot check failed: the remote cache's result (signed by key \(try keys.id("ci"))) "
          + "differs from the run here: 'out/app.bin' differs at byte offset 0; it was not restored (its action: "),
      "\(caught.stdout)")
    #expect(caught.stderr.contains("0 hits, 0 misses, 0 stored, 1 spot-checked (1 differed)"), "\(caught.stderr)")
    // Not retried: another attempt would restore the run's own entry and pass.
    #expect(!caught.stdout.contains("attempt 2"), "\(caught.stdout)")
    #expect(checking.read("out/app.bin") == "good\n")
    // The run here is kept in the local cache, which a later run restores (the remote result
    // is never asked for again here).
    let again = try run(checking, server)
    #expect(again.status == 0 && again.stderr.contains("0 hits, 0 misses"), "\(again.stderr)")
    #expect(checking.read("out/app.bin") == "good\n")

    // An honest result passes the check, and is not replaced.
    let honestSeed = UUID().uuidString
    let writer = try checkout(honestSeed, "good")
    let signed = try run(writer, server, environment: ["RUNNER_REMOTE_SIGNING_KEY": keys.ci])
    #expect(signed.stderr.contains("1 stored"), "\(signed.stderr)")
    let reader = try checkout(honestSeed, "good")
    let passed = try run(reader, server, ["--verify-cache", "100"])
    #expect(passed.status == 0, "\(passed.stderr)")
    #expect(passed.stderr.contains("0 hits, 0 misses, 0 stored, 1 spot-checked (0 differed)"), "\(passed.stderr)")
    #expect(reader.read("out/app.bin") == "good\n")
    try Self.expectNoKey(keys, in: [stored, fooled, caught, again, signed, passed], projects)
  }
}

/// The keys' errors, read before any exchange with a server.
@Suite struct RemoteKeyErrorTests {
  @Test func aKeyThatIsNotAnEd25519KeyIsAUsageErrorThatShowsNoKey() throws {
    let project = try TaskFileProject(RemoteTrustTests.tasks)
    defer { project.remove() }
    _ = try project.shell("openssl genpkey -algorithm x25519 -out x.pem 2>/dev/null")
    let pem = try #require(project.read("x.pem"))
    // No exchange happens before the keys are read: no server is needed.
    let server = "http://127.0.0.1:9/cache"
    let result = try project.run(
      ["--remote-cache", server],
      environment: ["RUNNER_REMOTE_SIGNING_KEY": project.directory.appendingPathComponent("x.pem").path])
    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains("RUNNER_REMOTE_SIGNING_KEY:"), "\(result.stderr)")
    #expect(result.stderr.contains("is not an Ed25519 private key"), "\(result.stderr)")
    for line in pem.split(separator: "\n") where !line.hasPrefix("-----") {
      #expect(!result.stderr.contains(line) && !result.stdout.contains(line))
    }
    // The usual mistakes are named: a key under a passphrase, a private key given as public.
    _ = try project.shell(
      """
      openssl genpkey -algorithm ed25519 -aes256 -pass pass:secret -out locked.pem 2>/dev/null
      openssl genpkey -algorithm ed25519 -out ci.pem 2>/dev/null
      openssl genpkey -algorithm ed25519 -out other.pem 2>/dev/null
      mkdir -p keys && openssl pkey -in ci.pem -pubout -out keys/ci.pub && cp other.pem keys/other.pub
      """)
    let locked = try project.run(
      ["--remote-cache", server],
      environment: ["RUNNER_REMOTE_SIGNING_KEY": project.directory.appendingPathComponent("locked.pem").path])
    #expect(locked.status == 2, "\(locked.stderr)")
    #expect(
      locked.stderr.contains("(it holds an encrypted private key: runner takes no passphrase)"), "\(locked.stderr)")
    let privateAsPublic = try project.run(["--remote-cache", server])
    #expect(privateAsPublic.status == 2, "\(privateAsPublic.stderr)")
    #expect(
      privateAsPublic.stderr.contains("keys/other.pub is not an Ed25519 public key in PEM")
        && privateAsPublic.stderr.contains("(it holds a private key: give its public half"), "\(privateAsPublic.stderr)"
    )
    // A writer whose key the list does not trust stores nothing, and says so.
    let ciID = try project.shell("openssl pkey -in ci.pem -pubout -outform DER | sha256sum | cut -c1-16")
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let otherID = try project.shell("openssl pkey -in other.pem -pubout -outform DER | sha256sum | cut -c1-16")
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let untrustedWriter = try project.run(
      ["--remote-cache", server],
      environment: [
        "RUNNER_REMOTE_SIGNING_KEY": project.directory.appendingPathComponent("other.pem").path,
        "RUNNER_REMOTE_TRUST": project.directory.appendingPathComponent("keys/ci.pub").path,
      ])
    #expect(
      untrustedWriter.stderr.contains(
        "warning: RUNNER_REMOTE_SIGNING_KEY: key \(otherID) is not among the trusted keys (\(ciID)): nothing is stored"),
      "\(untrustedWriter.stderr)")
    // A trusted key file that holds no key: the file's place and the path.
    try project.write("keys/other.pub", "not a key\n")
    try project.write("keys/ci.pub", "not a key either\n")
    let notKey = try project.run(["--remote-cache", server])
    #expect(notKey.status == 2, "\(notKey.stderr)")
    #expect(notKey.stderr.contains("tasks.yml:2:10: remote.trust: "), "\(notKey.stderr)")
    #expect(notKey.stderr.contains("keys/other.pub is not an Ed25519 public key in PEM"), "\(notKey.stderr)")
    // One that is not there.
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("keys/other.pub"))
    let missing = try project.run(["--remote-cache", server])
    #expect(missing.status == 2 && missing.stderr.contains("cannot find the key file "), "\(missing.stderr)")
    #expect(missing.stderr.contains("keys/other.pub"), "\(missing.stderr)")
    // A spot check's share that is not one.
    for share in ["101", "-5", "ten", "0.125", "5%%"] {
      let wrong = try project.run(["--remote-cache", server, "--verify-cache=\(share)"])
      #expect(wrong.status == 2, "\(wrong.stderr)")
      #expect(
        wrong.stderr.contains("--verify-cache: '\(share)' is not a share from 0 to 100 percent"), "\(wrong.stderr)")
    }
    let seedAlone = try project.run(["--remote-cache", server, "--verify-cache-seed=7"])
    #expect(seedAlone.status == 2, "\(seedAlone.stderr)")
    #expect(seedAlone.stderr.contains("--verify-cache-seed picks tasks for --verify-cache"), "\(seedAlone.stderr)")
    // A list of no paths.
    let none = try project.run(["--remote-cache", server], environment: ["RUNNER_REMOTE_TRUST": ":"])
    #expect(none.status == 2 && none.stderr.contains("RUNNER_REMOTE_TRUST: no public key file named"), "\(none.stderr)")
  }
}
