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

    // The private keys are found in no output, event or cache file.
    let secrets = try [keys.ci, keys.other].flatMap { path -> [String] in
      let pem = try String(contentsOfFile: path, encoding: .utf8)
      return pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
    }
    for secret in secrets {
      for output in outputs { #expect(!output.stdout.contains(secret) && !output.stderr.contains(secret)) }
      for project in projects {
        let found = try project.shell("grep -rlF -- '\(secret)' . || true")
        #expect(found.isEmpty, "the key is in \(found)")
      }
    }
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
    // A list of no paths.
    let none = try project.run(["--remote-cache", server], environment: ["RUNNER_REMOTE_TRUST": ":"])
    #expect(none.status == 2 && none.stderr.contains("RUNNER_REMOTE_TRUST: no public key file named"), "\(none.stderr)")
  }
}
