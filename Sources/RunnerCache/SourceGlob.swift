import Glibc
import RunnerBasics

/// Expands `sources` and `outputs` patterns into the files they name, relative to a directory.
///
/// `*`, `?`, `[abc]`, `[!a-z]` match within one path segment, `{a,b}` expands to
/// alternatives, and `**` matches any number of directories (zero included). A wildcard does
/// not match a name that starts with `.` unless the pattern segment does (as in the shell), so
/// `**` skips hidden directories; a hidden path written literally (`.env`) is found. A pattern
/// naming a directory takes every file under it, hidden ones included. Symbolic links to files
/// are followed; `**` does not descend into linked directories (no cycles), though a literal
/// path through one works. `.runner` and `.git` are never entered by a walk. Only regular
/// files (and links to them) are taken: FIFOs, devices and sockets are passed over. A pattern that
/// starts with `!` excludes what it matches from what the other patterns found, wherever it is
/// in the list (`src/**/*.go`, `!src/**/*_test.go`).
package enum SourceGlob {
  /// Sorted, unique paths (as the pattern spells them: relative to `base`, or absolute).
  package static func expand(_ patterns: [String], in base: String) -> [String] {
    var recorder: SourceWalk.Recorder?
    return expand(patterns, in: base, recording: &recorder)
  }

  /// As `expand(_:in:)`, telling `recorder` (when there is one) every `stat` and listing.
  static func expand(_ patterns: [String], in base: String, recording recorder: inout SourceWalk.Recorder?)
    -> [String]
  {
    var found = Set<String>()
    var exclusions: [[String]] = []
    for written in patterns {
      if written.hasPrefix("!") {
        for pattern in expandBraces(String(written.dropFirst())) {
          exclusions.append(pattern.split(separator: "/").map(String.init).filter { $0 != "." })
        }
        continue
      }
      for pattern in expandBraces(written) {
        var segments = pattern.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        segments.removeAll { $0 == "." }
        let absolute = pattern.hasPrefix("/")
        walk(
          directory: absolute ? "" : base, shown: absolute ? "/" : "", segments: segments[...], into: &found,
          recorder: &recorder)
      }
    }
    if !exclusions.isEmpty {
      found = found.filter { path in
        let segments = path.split(separator: "/").map(String.init)
        return !exclusions.contains { pathMatches($0[...], segments[...]) }
      }
    }
    return found.sorted()
  }

  /// Whether a whole path matches a pattern's segments; `**` matches any number of segments.
  static func pathMatches(_ pattern: ArraySlice<String>, _ path: ArraySlice<String>) -> Bool {
    guard let first = pattern.first else { return path.isEmpty }
    if first == "**" {
      var rest = path
      while true {
        if pathMatches(pattern.dropFirst(), rest) { return true }
        guard !rest.isEmpty else { return false }
        rest = rest.dropFirst()
      }
    }
    guard let name = path.first else { return false }
    let matched = isWildcard(first) ? matches(Array(first.utf8)[...], Array(name.utf8)[...]) : first == name
    // A directory pattern excludes everything under it.
    return matched && (pattern.count == 1 || pathMatches(pattern.dropFirst(), path.dropFirst()))
  }

  /// `a{b,c}d` → `abd`, `acd` (nested braces expand from the first).
  static func expandBraces(_ pattern: String) -> [String] {
    let characters = Array(pattern)
    guard let open = characters.firstIndex(of: "{") else { return [pattern] }
    var depth = 0
    var close: Int?
    var commas: [Int] = []
    for index in open..<characters.count {
      switch characters[index] {
      case "{": depth += 1
      case "}":
        depth -= 1
        if depth == 0 { close = index }
      case "," where depth == 1: commas.append(index)
      default: break
      }
      if close != nil { break }
    }
    guard let close, !commas.isEmpty else { return [pattern] }
    let head = String(characters[..<open])
    let tail = String(characters[(close + 1)...])
    let bounds = [open] + commas + [close]
    return (0..<(bounds.count - 1)).flatMap { part in
      expandBraces(head + String(characters[(bounds[part] + 1)..<bounds[part + 1]]) + tail)
    }
  }

  static func isWildcard(_ segment: String) -> Bool {
    segment.contains { $0 == "*" || $0 == "?" || $0 == "[" }
  }

  static func join(_ directory: String, _ name: String) -> String {
    directory.isEmpty ? "/" + name : directory.hasSuffix("/") ? directory + name : directory + "/" + name
  }

  static func joinShown(_ shown: String, _ name: String) -> String {
    shown.isEmpty ? name : shown.hasSuffix("/") ? shown + name : shown + "/" + name
  }

  static let neverEntered: Set<String> = [".runner", ".git"]

  private static func status(_ path: String, follow: Bool = true, _ recorder: inout SourceWalk.Recorder?)
    -> CacheFileSystem.Status?
  {
    recorder == nil ? CacheFileSystem.status(path, follow: follow) : recorder!.status(path, follow: follow)
  }

  private static func list(_ path: String, _ recorder: inout SourceWalk.Recorder?) -> [(name: String, type: UInt8)] {
    recorder == nil ? CacheFileSystem.list(path) : recorder!.list(path)
  }

  private static func walk(
    directory: String, shown: String, segments: ArraySlice<String>, into found: inout Set<String>,
    recorder: inout SourceWalk.Recorder?
  ) {
    guard let segment = segments.first else {
      guard let status = Self.status(directory.isEmpty ? "/" : directory, &recorder) else { return }
      if status.isDirectory {
        addAll(directory: directory, shown: shown, hidden: true, into: &found, recorder: &recorder)
      } else if !shown.isEmpty, status.isRegular {
        // A FIFO, device or socket is never a source or an output (reading one could block
        // for ever or never end): patterns and walks pass over them.
        found.insert(shown)
      }
      return
    }
    let rest = segments.dropFirst()
    if segment == "**" {
      if rest.isEmpty {
        addAll(directory: directory, shown: shown, hidden: false, into: &found, recorder: &recorder)
        return
      }
      walk(directory: directory, shown: shown, segments: rest, into: &found, recorder: &recorder)
      for entry in Self.list(directory.isEmpty ? "/" : directory, &recorder)
      where entry.type == UInt8(DT_DIR) && !entry.name.hasPrefix(".") {
        walk(
          directory: join(directory, entry.name), shown: joinShown(shown, entry.name), segments: segments,
          into: &found, recorder: &recorder)
      }
    } else if !isWildcard(segment) {
      let path = join(directory, segment)
      guard Self.status(path, &recorder) != nil else { return }
      walk(directory: path, shown: joinShown(shown, segment), segments: rest, into: &found, recorder: &recorder)
    } else {
      let pattern = Array(segment.utf8)
      let hiddenAllowed = segment.hasPrefix(".")
      for entry in Self.list(directory.isEmpty ? "/" : directory, &recorder) {
        if entry.name.hasPrefix("."), !hiddenAllowed { continue }
        if entry.name.utf8.first == UInt8(ascii: "."), entry.name.contains(FilePath.temporaryMark) { continue }
        guard matches(pattern[...], Array(entry.name.utf8)[...]) else { continue }
        if !rest.isEmpty, entry.type != UInt8(DT_DIR), entry.type != UInt8(DT_LNK), entry.type != UInt8(DT_UNKNOWN) {
          continue
        }
        walk(
          directory: join(directory, entry.name), shown: joinShown(shown, entry.name), segments: rest,
          into: &found, recorder: &recorder)
      }
    }
  }

  /// Every file under a directory; `hidden` says whether dot-names are taken.
  private static func addAll(
    directory: String, shown: String, hidden: Bool, into found: inout Set<String>,
    recorder: inout SourceWalk.Recorder?
  ) {
    for entry in Self.list(directory.isEmpty ? "/" : directory, &recorder) {
      if neverEntered.contains(entry.name) || (!hidden && entry.name.hasPrefix("."))
        || (entry.name.utf8.first == UInt8(ascii: ".") && entry.name.contains(FilePath.temporaryMark))
      {
        continue
      }
      let path = join(directory, entry.name)
      let name = joinShown(shown, entry.name)
      switch entry.type {
      case UInt8(DT_DIR): addAll(directory: path, shown: name, hidden: hidden, into: &found, recorder: &recorder)
      case UInt8(DT_REG): found.insert(name)
      default:
        // A link or an unknown type: a file if it resolves to one (linked directories are not walked).
        if let status = Self.status(path, follow: false, &recorder) {
          if status.isDirectory {
            addAll(directory: path, shown: name, hidden: hidden, into: &found, recorder: &recorder)
          } else if status.isRegular || status.isSymlink {
            if let target = Self.status(path, &recorder), target.isDirectory { continue }
            found.insert(name)
          }
        }
      }
    }
  }

  /// Shell-style matching of one segment: `*`, `?`, `[...]` (with `!` or `^` negation and ranges).
  static func matches(_ pattern: ArraySlice<UInt8>, _ name: ArraySlice<UInt8>) -> Bool {
    var p = pattern.startIndex
    var n = name.startIndex
    var star: (p: Int, n: Int)?
    while n < name.endIndex {
      if p < pattern.endIndex {
        let c = pattern[p]
        if c == UInt8(ascii: "*") {
          star = (p + 1, n)
          p += 1
          continue
        }
        if c == UInt8(ascii: "?") {
          p += 1
          n += 1
          continue
        }
        if c == UInt8(ascii: "["), let (matched, next) = matchClass(pattern, at: p, name[n]) {
          if matched {
            p = next
            n += 1
            continue
          }
        } else if c == name[n] {
          p += 1
          n += 1
          continue
        }
      }
      guard let resume = star else { return false }
      star = (resume.p, resume.n + 1)
      p = resume.p
      n = resume.n + 1
    }
    while p < pattern.endIndex, pattern[p] == UInt8(ascii: "*") { p += 1 }
    return p == pattern.endIndex
  }

  /// Matches a `[...]` class at `start`: whether `byte` is in it, and the index after it; nil if unclosed.
  private static func matchClass(_ pattern: ArraySlice<UInt8>, at start: Int, _ byte: UInt8) -> (Bool, Int)? {
    var index = start + 1
    var negate = false
    if index < pattern.endIndex, pattern[index] == UInt8(ascii: "!") || pattern[index] == UInt8(ascii: "^") {
      negate = true
      index += 1
    }
    var matched = false
    var first = true
    while index < pattern.endIndex {
      let c = pattern[index]
      if c == UInt8(ascii: "]"), !first { return (matched != negate, index + 1) }
      first = false
      if index + 2 < pattern.endIndex, pattern[index + 1] == UInt8(ascii: "-"), pattern[index + 2] != UInt8(ascii: "]")
      {
        if c <= byte && byte <= pattern[index + 2] { matched = true }
        index += 3
      } else {
        if c == byte { matched = true }
        index += 1
      }
    }
    return nil
  }
}
