import Foundation
import Testing

/// Issue 18, P6: output in runs of lines (one write per read, not per line) keeps every line,
/// whole and prefixed, in every mode; a cached log replays the same; cache entries are
/// streamed in and out.
@Suite struct OutputVolumeTests {
  /// 200 000 numbered lines, some of them long enough to span reads, and a last line without
  /// a newline.
  static let yaml = """
    tasks:
      t: |
        seq 1 200000 | awk '{ if ($1 % 5000 == 0) printf "%s %0100000d\\n", $1, 0; else print $1 }'
        printf 'end'
    """

  func expectEveryLine(_ stdout: String, prefix: String) {
    let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false).filter { $0.hasPrefix(prefix) }
    #expect(lines.count == 200_001)
    var expected = 1
    for line in lines.dropLast() {
      let number = line.dropFirst(prefix.count).prefix { $0 != " " }
      guard Int(number) == expected else {
        Issue.record("line \(expected) is '\(line.prefix(60))'")
        return
      }
      if expected % 5000 == 0, line.count != prefix.count + "\(expected) ".count + 100_000 {
        Issue.record("long line \(expected) has \(line.count) characters")
        return
      }
      expected += 1
    }
    #expect(lines.last == "\(prefix)end")
  }

  @Test(arguments: ["prefixed", "grouped", "quiet"])
  func everyLineArrivesWholeAndPrefixed(mode: String) throws {
    let project = try TaskFileProject(Self.yaml.replacingOccurrences(of: "printf 'end'", with: "printf 'end'; exit 1"))
    defer { project.remove() }
    let output = try project.run("--output", mode, "t")
    #expect(output.status == 1)
    expectEveryLine(output.stdout, prefix: "t | ")
  }

  @Test func aCachedLogReplaysTheSameLines() throws {
    let project = try TaskFileProject(
      """
      tasks:
        t:
          sources: [in.txt]
          run: |
            seq 1 200000 | awk '{ if ($1 % 5000 == 0) printf "%s %0100000d\\n", $1, 0; else print $1 }'
            printf 'end'
      """)
    defer { project.remove() }
    try project.write("in.txt", "1\n")
    let first = try project.run("t")
    #expect(first.status == 0, "\(first.stderr)")
    expectEveryLine(first.stdout, prefix: "t | ")
    try project.write("in.txt", "2\n")
    _ = try project.run("t")
    try project.write("in.txt", "1\n")
    let restored = try project.run("t")
    #expect(restored.stdout.contains("restored from cache"), "\(restored.stdout.suffix(300))")
    expectEveryLine(restored.stdout, prefix: "t | ")
  }

  /// Outputs go into the cache and come back through a 1 MiB buffer, checked on the way: the
  /// bytes are exact, and an entry an older runner wrote is a quiet miss.
  @Test func aBigOutputIsStoredAndRestoredExactly() throws {
    let project = try TaskFileProject(
      """
      tasks:
        big:
          sources: [in.txt]
          outputs: [out/big.bin, small.txt]
          run: mkdir -p out && head -c 40000000 /dev/urandom > out/big.bin && cat in.txt > small.txt
      """)
    defer { project.remove() }
    try project.write("in.txt", "one\n")
    #expect(try project.run("big").status == 0)
    let original = try Data(contentsOf: project.directory.appendingPathComponent("out/big.bin"))
    #expect(original.count == 40_000_000)
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("out"))
    try FileManager.default.removeItem(at: project.directory.appendingPathComponent("small.txt"))
    let restored = try project.run("big")
    #expect(restored.stdout.contains("restored from cache"), "\(restored.stdout)")
    #expect(try Data(contentsOf: project.directory.appendingPathComponent("out/big.bin")) == original)
    #expect(project.read("small.txt") == "one\n")
    // An entry in the format of runner 0.5 and before: dropped without a warning, and run.
    let entries = try project.shell("find .runner/cache -type f -name '[0-9a-f]*[0-9a-f]' | grep -v usage")
      .split(separator: "\n")
    #expect(entries.count == 1)
    try project.write(String(entries[0]), "runner-cache 1\nend\n")
    try project.write("small.txt", "edited\n")
    let old = try project.run("big")
    #expect(old.status == 0)
    #expect(!old.stdout.contains("restored from cache"))
    #expect(!old.stderr.contains("warning"), "\(old.stderr)")
    #expect(project.read("small.txt") == "one\n")
  }
}
