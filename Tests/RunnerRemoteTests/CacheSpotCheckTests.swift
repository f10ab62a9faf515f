import Foundation
import RunnerCache
import RunnerRemoteAPI
import Testing

/// `--verify-cache`: the share as written, the pick by key, and the comparison of a result
/// found with the run here.
@Suite struct CacheSpotCheckTests {
  @Test func aShareIsAPercentToAHundredth() {
    let accepted: [(String, Int)] = [("10", 1000), ("10%", 1000), ("0.5", 50), ("0.05%", 5), ("100", 10_000), ("0", 0)]
    for (text, points) in accepted {
      #expect(CacheSpotCheck(percent: text)?.basisPoints == points, "\(text)")
    }
    for text in ["101", "100.01", "-1", "ten", "1.234", "", "%", ".5", "5.", "5%%", "1e2", " 5"] {
      #expect(CacheSpotCheck(percent: text) == nil, "\(text)")
    }
  }

  /// The pick depends on the key and the seed alone, and takes about the share asked for.
  @Test func thePickIsTheKeysAndTheSeedsAlone() {
    let keys = (0..<20_000).map { ContentHasher.sha256Hex(Array("key \($0)".utf8)) }
    let tenth = CacheSpotCheck(basisPoints: 1000)
    let picked = Set(keys.filter(tenth.picks(keyHash:)))
    #expect((1_800...2_200).contains(picked.count), "\(picked.count) of 20 000 at 10 %")
    #expect(Set(keys.filter(CacheSpotCheck(basisPoints: 1000).picks(keyHash:))) == picked)
    let reseeded = Set(keys.filter(CacheSpotCheck(basisPoints: 1000, seed: "run 42").picks(keyHash:)))
    #expect((1_800...2_200).contains(reseeded.count))
    // Another seed, other tasks: about a tenth of the first pick again.
    #expect((100...320).contains(picked.intersection(reseeded).count), "\(picked.intersection(reseeded).count)")
    #expect(keys.allSatisfy(CacheSpotCheck(basisPoints: 10_000).picks(keyHash:)))
    #expect(!keys.contains(where: CacheSpotCheck(basisPoints: 0).picks(keyHash:)))
    let hundredth = keys.filter(CacheSpotCheck(basisPoints: 1).picks(keyHash:)).count
    #expect((0...8).contains(hundredth), "\(hundredth) of 20 000 at 0.01 %")
  }

  static func entry(_ files: [(String, String, UInt32)], values: [(String, String)] = [], image: [UInt8]? = nil)
    -> CacheEntry
  {
    var entry = CacheEntry()
    entry.files = files.map { path, content, mode in
      CacheEntry.File(
        path: path, mode: mode, size: Int64(content.utf8.count), hash: ContentHasher.sha256Hex(Array(content.utf8)))
    }
    entry.values = values.map { (key: $0.0, value: $0.1) }
    entry.image = image
    return entry
  }

  @Test func theFirstDifferenceIsNamed() {
    let made = Self.entry([("b/x", "one", 0o644), ("a", "two", 0o755)], values: [("v", "1")], image: [1, 2])
    #expect(CacheSpotCheck.firstDifference(found: made, here: made) == nil)
    // The log is not compared.
    var logged = made
    logged.log = [CacheEntry.LogChunk(stream: .stdout, bytes: Array("built at 12:00\n".utf8))]
    #expect(CacheSpotCheck.firstDifference(found: logged, here: made) == nil)
    /// The difference `made`, changed by `change`, has from `made` as found: its text and file.
    func difference(_ change: (inout CacheEntry) -> Void) -> CacheSpotCheck.Difference? {
      var found = made
      change(&found)
      return CacheSpotCheck.firstDifference(found: found, here: made)
    }
    let changedFile = Self.entry([("x", "0ne", 0o644)])
    let cases: [(change: (inout CacheEntry) -> Void, said: String, path: String?)] = [
      // Files in byte order: the first of two that differ.
      (
        {
          $0.files[0].hash = changedFile.files[0].hash; $0.files[1].hash = changedFile.files[0].hash
        }, "'a' differs", "a"
      ),
      ({ $0.files[0].hash = changedFile.files[0].hash }, "'b/x' differs", "b/x"),
      ({ $0.files[1].mode = 0o644 }, "'a' is executable here", "a"),
      ({ $0.files.remove(at: 1) }, "'a' is written here, not in the cached result", "a"),
      ({ $0.files += Self.entry([("c", "", 0o644)]).files }, "'c' is in the cached result, not written here", "c"),
      ({ $0.values = [(key: "v", value: "2")] }, "the output value 'v' differs", nil),
      ({ $0.image = [1, 3] }, "the image differs", nil),
    ]
    for (change, said, path) in cases {
      let found = difference(change)
      #expect(found?.description == said && found?.path == path, "\(String(describing: found)) for \(said)")
    }
  }

  /// Where two files first differ, read in pieces: past the first piece, at the end of the
  /// shorter, nowhere.
  @Test func theFirstDifferingByteOfTwoFiles() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spot-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
      let path = directory.appendingPathComponent(name).path
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      return path
    }
    let base = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    var changed = base
    changed[150_001] ^= 1
    let a = try file("a", base)
    #expect(CacheFileSystem.firstDifference(a, try file("same", base)) == nil)
    #expect(CacheFileSystem.firstDifference(a, try file("changed", changed)) == 150_001)
    #expect(CacheFileSystem.firstDifference(a, try file("short", Array(base.prefix(70_000)))) == 70_000)
    #expect(CacheFileSystem.firstDifference(try file("empty", []), a) == 0)
    #expect(CacheFileSystem.firstDifference(a, directory.appendingPathComponent("none").path) == nil)
  }
}
