import Glibc
import RunnerBasics

/// What expanding a task's `sources` looked at, so that the next run can reuse the expansion
/// after one `stat` per directory instead of listing every directory again.
///
/// Adding, removing or renaming an entry changes its directory's modification time, so a
/// listed directory whose stamp is unchanged still holds the same names. Lookups that no
/// listing covers (a literal path, or a symbolic link whose target may change kind) are kept
/// as probes, replayed with `stat`. A directory whose stamp `Disk` cannot vouch for when
/// it was listed is not trusted: the next run walks again, as it would without a record.
package struct SourceWalk: Sendable, Equatable {
  /// The patterns and the directory they were expanded in (`key(patterns:directory:)`).
  var key: String
  var listings: [Listing]
  var probes: [Probe]

  struct Listing: Sendable, Equatable {
    var path: String
    var stamp: CacheFileSystem.Stamp
  }

  /// A `stat` (or, without `follow`, `lstat`) and the kind of thing it found.
  struct Probe: Sendable, Equatable {
    var path: String
    var follow: Bool
    var kind: Kind
  }

  enum Kind: String, Sendable {
    case absent, directory, other
  }

  /// The patterns and directory themselves, each length-prefixed (compared once per task in
  /// every run, where a digest would cost more than the comparison it spares).
  static func key(patterns: [String], directory: String) -> String {
    var key = "walk-2 \(directory.utf8.count):\(directory)"
    for pattern in patterns { key += " \(pattern.utf8.count):\(pattern)" }
    return key
  }

  static func kind(of status: CacheFileSystem.Status?) -> Kind {
    guard let status else { return .absent }
    return status.isDirectory ? .directory : .other
  }

  /// Whether the file system still looks as it did: every listing's stamp and every probe's kind.
  ///
  /// - Parameter judge: judges each listing's stamp again (a clock stepped back since); nil
  ///   compares stamps only (the read-ahead).
  func holds(in files: any FileSystem, judge: Disk.Judge?) -> Bool {
    for listing in listings {
      guard let status = files.status(listing.path, follow: true), status.isDirectory, status.stamp == listing.stamp,
        judge?.trusts(status.stamp) ?? true
      else { return false }
    }
    return probes.allSatisfy { Self.kind(of: files.status($0.path, follow: $0.follow)) == $0.kind }
  }

  /// Collects what a walk looks at (`SourceGlob` calls it for every `stat` and listing).
  struct Recorder {
    private var listed: [String: (stamp: CacheFileSystem.Stamp, types: [String: UInt8])] = [:]
    private var listingOrder: [String] = []
    private var probes: [Probe] = []
    private var seen: Set<String> = []
    private var trusted = true
    private let judge: Disk.Judge
    let files: any FileSystem

    /// - Parameters:
    ///   - judge: which listings are too recent to trust, asked before the first.
    ///   - files: where the walk looks.
    init(judge: Disk.Judge, files: any FileSystem) {
      self.judge = judge
      self.files = files
    }

    mutating func status(_ path: String, follow: Bool = true) -> CacheFileSystem.Status? {
      let status = files.status(path, follow: follow)
      if seen.insert((follow ? "f" : "l") + path).inserted {
        probes.append(Probe(path: path, follow: follow, kind: SourceWalk.kind(of: status)))
      }
      return status
    }

    mutating func list(_ path: String) -> [(name: String, type: UInt8)] {
      // The stamp is taken before the listing: a change in between makes the next run walk again.
      guard let status = files.status(path, follow: true), status.isDirectory else {
        trusted = false
        return files.list(path)
      }
      let entries = files.list(path)
      if !judge.trusts(status.stamp) { trusted = false }
      if listed[path] == nil { listingOrder.append(path) }
      var types: [String: UInt8] = [:]
      for entry in entries { types[entry.name] = entry.type }
      listed[path] = (status.stamp, types)
      return entries
    }

    /// The walk to record, or nil when a listed directory changed too recently to be trusted.
    ///
    /// A probe is left out when a listing covers it: a directory on the way to a listed one,
    /// or an entry of a listed directory that is a plain file or directory (it cannot change
    /// kind without its directory's stamp changing; a symbolic link can).
    func finish(key: String) -> SourceWalk? {
      guard trusted else { return nil }
      var covered = Set<String>()
      for path in listingOrder {
        var path = path
        while covered.insert(path).inserted, path != "/", path.contains("/") {
          path = FilePath.parent(of: path)
        }
      }
      let kept = probes.filter { probe in
        if probe.kind == .directory, covered.contains(probe.path) { return false }
        let name = probe.path.split(separator: "/").last.map(String.init) ?? probe.path
        if let types = listed[FilePath.parent(of: probe.path)]?.types, let type = types[name],
          type == UInt8(DT_REG) || type == UInt8(DT_DIR)
        {
          return false
        }
        return true
      }
      return SourceWalk(
        key: key, listings: listingOrder.map { Listing(path: $0, stamp: listed[$0]!.stamp) }, probes: kept)
    }
  }
}
