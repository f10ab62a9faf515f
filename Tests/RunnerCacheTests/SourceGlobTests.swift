import Foundation
import Testing

@testable import RunnerCache

/// Glob edge cases: hidden files, symbolic links, spaces, `**` at any depth.
@Suite struct SourceGlobTests {
  let root: String

  init() throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent("runner-glob-\(UUID().uuidString)").path
    for file in [
      "top.swift", "Sources/main.swift", "Sources/.hidden.swift", "Sources/a b/with space.swift",
      "Sources/deep/er/est/leaf.swift", "Sources/deep/notes.txt", ".config/settings.swift", "Sources/.git/x.swift",
      "data/x1.csv", "data/x2.csv", "data/y1.csv",
    ] {
      let path = root + "/" + file
      try FileManager.default.createDirectory(
        atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try "// \(file)\n".write(toFile: path, atomically: false, encoding: .utf8)
    }
    try FileManager.default.createSymbolicLink(atPath: root + "/Sources/link.swift", withDestinationPath: "main.swift")
    try FileManager.default.createSymbolicLink(atPath: root + "/Sources/loop", withDestinationPath: "..")
    try FileManager.default.createSymbolicLink(atPath: root + "/linked", withDestinationPath: "Sources/deep")
  }

  func expand(_ patterns: String...) -> [String] { SourceGlob.expand(patterns, in: root) }

  @Test func bangPatternsExcludeWhereverTheyStand() {
    #expect(
      expand("!Sources/deep/**", "Sources/**/*.swift") == [
        "Sources/a b/with space.swift", "Sources/link.swift", "Sources/main.swift",
      ])
    #expect(expand("data/*.csv", "!data/x*.csv") == ["data/y1.csv"])
    #expect(expand("Sources/deep", "!**/*.txt") == ["Sources/deep/er/est/leaf.swift"])
    #expect(expand("data/*.csv", "!data/{x1,y1}.csv") == ["data/x2.csv"])
  }

  @Test func doubleStarMatchesAnyDepthIncludingZero() {
    #expect(
      expand("**/*.swift") == [
        "Sources/a b/with space.swift", "Sources/deep/er/est/leaf.swift", "Sources/link.swift", "Sources/main.swift",
        "top.swift",
      ])
    #expect(expand("Sources/**/leaf.swift") == ["Sources/deep/er/est/leaf.swift"])
    #expect(expand("Sources/deep/**/*.txt") == ["Sources/deep/notes.txt"])
    #expect(expand("Sources/**/est/*") == ["Sources/deep/er/est/leaf.swift"])
  }

  @Test func hiddenFilesOnlyWhenNamed() {
    #expect(!expand("Sources/*").contains("Sources/.hidden.swift"))
    #expect(expand("Sources/.*.swift") == ["Sources/.hidden.swift"])
    #expect(expand(".config/settings.swift") == [".config/settings.swift"])
    #expect(expand(".config/*") == [".config/settings.swift"])
  }

  @Test func aDirectoryTakesEverythingUnderIt() {
    #expect(expand("Sources/deep") == ["Sources/deep/er/est/leaf.swift", "Sources/deep/notes.txt"])
    #expect(expand("Sources").contains("Sources/.hidden.swift"))
    #expect(!expand("Sources").contains("Sources/.git/x.swift"))
  }

  @Test func symbolicLinks() {
    // A link to a file is a file; `**` does not follow linked directories (no loop), a literal path does.
    #expect(expand("Sources/*.swift") == ["Sources/link.swift", "Sources/main.swift"])
    #expect(!expand("**").contains { $0.hasPrefix("Sources/loop/") || $0.hasPrefix("linked/") })
    #expect(expand("linked/*.txt") == ["linked/notes.txt"])
  }

  @Test func spacesClassesBracesAndMissing() {
    #expect(expand("Sources/a b/*.swift") == ["Sources/a b/with space.swift"])
    #expect(expand("data/x[0-9].csv") == ["data/x1.csv", "data/x2.csv"])
    #expect(expand("data/[!x]?.csv") == ["data/y1.csv"])
    #expect(expand("data/{x1,y1}.csv", "top.swift") == ["data/x1.csv", "data/y1.csv", "top.swift"])
    #expect(expand("nothing/**/*.c", "missing.txt").isEmpty)
    #expect(expand("./top.swift") == ["top.swift"])
  }

  @Test func linkedFileContentCounts() {
    let records = Fingerprint.hashFiles(
      ["Sources/link.swift", "Sources/main.swift"], in: root, previous: [], disk: Disk(mark: nil))
    #expect(records[0].content == records[1].content)
  }
}
