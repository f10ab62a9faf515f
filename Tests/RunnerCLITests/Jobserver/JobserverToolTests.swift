import Foundation
import Testing

/// runner serves its `-j` as a GNU make jobserver; real make, ninja and cargo take their jobs
/// from it, and never run more than `-j` jobs in all (counted from what the jobs record).
@Suite struct JobserverToolTests {
  static let make = JobRecords.tool("make")
  static let ninja = JobRecords.tool("ninja", variable: "RUNNER_TEST_NINJA")
  static let cargo = JobRecords.tool("cargo", variable: "RUNNER_TEST_CARGO")

  @Test(.enabled(if: JobserverToolTests.make != nil, "make is not installed (apt-get install make)"))
  func twoMakesUnderTwoSlotsNeverRunMoreThanTwoJobs() throws {
    let project = try TaskFileProject(
      """
      tasks:
        a: make -s -f jobs.mk TAG=a LOG=log.txt
        b: make -s -f jobs.mk TAG=b LOG=log.txt
        all: { deps: [a, b] }
      """)
    defer { project.remove() }
    try project.write("jobs.mk", JobRecords.makefile)
    let result = try project.run("-j2", "all", environment: ["PATH": Self.path(Self.make!)])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let records = JobRecords(project.read("log.txt"))
    #expect(records.starts == 20)
    #expect(records.mostAtOnce == 2, "\(records.lines)")
  }

  @Test(.enabled(if: JobserverToolTests.make != nil, "make is not installed (apt-get install make)"))
  func oneMakeGetsTheSlotsNoTaskUses() throws {
    let project = try TaskFileProject("tasks:\n  a: make -s -f jobs.mk TAG=a LOG=log.txt N=9\n")
    defer { project.remove() }
    try project.write("jobs.mk", JobRecords.makefile)
    let result = try project.run("-j3", "a", environment: ["PATH": Self.path(Self.make!)])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(JobRecords(project.read("log.txt")).mostAtOnce == 3)
  }

  /// make killed with SIGKILL while its jobs hold two tokens: they never come back to its
  /// pool, yet the next task gets all three slots.
  @Test(.enabled(if: JobserverToolTests.make != nil, "make is not installed (apt-get install make)"))
  func aKilledMakeLeavesThePoolWhole() throws {
    let project = try TaskFileProject(
      """
      tasks:
        killed: make -s -f kill.mk
        after: { deps: [killed], always: true, run: make -s -f jobs.mk TAG=b LOG=log.txt N=9 }
      """)
    defer { project.remove() }
    try project.write("jobs.mk", JobRecords.makefile)
    try project.write(
      "kill.mk",
      "all: hold1 hold2 killer\nhold%:\n\t@touch held$*; sleep 30\nkiller:\n\t@while [ ! -e held1 ] || [ ! -e held2 ]; do sleep 0.05; done; kill -KILL $$PPID\n"
    )
    let result = try project.run("-j3", "after", environment: ["PATH": Self.path(Self.make!)])
    #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains("✗ killed"), "\(result.stdout)")
    let records = JobRecords(project.read("log.txt"))
    #expect(records.starts == 9)
    #expect(records.mostAtOnce == 3, "\(records.lines)")
  }

  /// Run from a make rule marked `+`, runner takes its slots from make's jobserver.
  @Test(.enabled(if: JobserverToolTests.make != nil, "make is not installed (apt-get install make)"))
  func runnerUnderMakeRunsNoMoreTasksThanMakesJobs() throws {
    var tasks = "tasks:\n"
    for n in 1...6 { tasks += "  t\(n): 'echo start \(n) >> log.txt; sleep 0.3; echo end \(n) >> log.txt'\n" }
    tasks += "  all: { deps: [t1, t2, t3, t4, t5, t6] }\n"
    let project = try TaskFileProject(tasks)
    defer { project.remove() }
    try project.write("outer.mk", "all:\n\t+@\"$(RUNNER)\" all\nplain:\n\t@\"$(RUNNER)\" all\n")
    let runner = BinaryRunner.executable.path
    let result = try BinaryRunner.run(
      ["-s", "-j3", "-f", "outer.mk", "RUNNER=\(runner)"], in: project.directory, program: Self.make!)
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(JobRecords(project.read("log.txt")).mostAtOnce == 3)
    // Without `+`, make keeps its descriptors from runner: runner says so and uses its own -j.
    let plain = try BinaryRunner.run(
      ["-s", "-j3", "-f", "outer.mk", "plain", "RUNNER=\(runner)"], in: project.directory, program: Self.make!)
    #expect(plain.status == 0, "\(plain.stdout)\(plain.stderr)")
    #expect(plain.stderr.contains("make passes it only to a rule marked '+'"), "\(plain.stderr)")
  }

  @Test(
    .enabled(if: JobserverToolTests.ninja != nil, "ninja 1.13 is not installed (pip install ninja; RUNNER_TEST_NINJA)"))
  func twoNinjasUnderTwoSlotsNeverRunMoreThanTwoJobs() throws {
    let project = try TaskFileProject(
      """
      tasks:
        a: { run: ninja -f a.ninja, jobserver: fifo }
        b: { run: ninja -f b.ninja, jobserver: fifo }
        all: { deps: [a, b] }
      """)
    defer { project.remove() }
    try project.write("a.ninja", JobRecords.ninjaFile(tag: "a", count: 10))
    try project.write("b.ninja", JobRecords.ninjaFile(tag: "b", count: 10))
    let result = try project.run("-j2", "all", environment: ["PATH": Self.path(Self.ninja!)])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    #expect(result.stdout.contains("Jobserver mode detected"), "\(result.stdout)")
    let records = JobRecords(project.read("log.txt"))
    #expect(records.starts == 20)
    #expect(records.mostAtOnce == 2, "\(records.lines)")
  }

  /// Two cargo workspaces of three crates whose build scripts record themselves.
  @Test(.enabled(if: JobserverToolTests.cargo != nil, "cargo is not installed (apt-get install cargo)"))
  func twoCargoBuildsUnderTwoSlotsNeverRunMoreThanTwoBuildScripts() throws {
    let project = try TaskFileProject(
      """
      tasks:
        a: { dir: a, run: cargo build --offline -q }
        b: { dir: b, run: cargo build --offline -q }
        all: { deps: [a, b] }
      """)
    defer { project.remove() }
    let script = """
      use std::io::Write;
      fn record(word: &str) {
          let log = std::env::var("LOG").unwrap();
          let mut file = std::fs::OpenOptions::new().append(true).create(true).open(log).unwrap();
          // One write: writeln! writes piece by piece, which other scripts' lines cut into.
          let line = format!("{} {}\n", word, std::env::var("CARGO_PKG_NAME").unwrap());
          file.write_all(line.as_bytes()).unwrap();
      }
      fn main() {
          record("start");
          std::thread::sleep(std::time::Duration::from_millis(300));
          record("end");
          println!("cargo:rerun-if-changed=build.rs");
      }

      """
    for workspace in ["a", "b"] {
      try project.write(
        "\(workspace)/Cargo.toml", "[workspace]\nmembers = [\"c1\", \"c2\", \"c3\"]\nresolver = \"2\"\n")
      for crate in ["c1", "c2", "c3"] {
        try project.write(
          "\(workspace)/\(crate)/Cargo.toml",
          "[package]\nname = \"\(workspace)\(crate)\"\nversion = \"0.1.0\"\nedition = \"2021\"\nbuild = \"build.rs\"\n")
        try project.write("\(workspace)/\(crate)/build.rs", script)
        try project.write("\(workspace)/\(crate)/src/lib.rs", "")
      }
    }
    let log = project.directory.appendingPathComponent("log.txt").path
    let result = try project.run("-j2", "all", environment: ["PATH": Self.path(Self.cargo!), "LOG": log])
    #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    let records = JobRecords(project.read("log.txt"))
    #expect(records.starts == 6)
    #expect(records.mostAtOnce <= 2, "\(records.lines)")
  }

  /// The tool's directory first on the test's `PATH`.
  static func path(_ tool: String) -> String {
    let directory = (tool as NSString).deletingLastPathComponent
    return "\(directory):\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")"
  }
}
