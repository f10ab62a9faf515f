/// A target with wildcards: `*` matches within one `:`-separated segment, `**` across segments,
/// so `*:test` matches `api:test` but not `a:b:test`, and `**` matches every task.
package enum TargetPattern {
  package static func isPattern(_ name: String) -> Bool { name.contains("*") }

  package static func matches(_ pattern: String, _ name: String) -> Bool {
    matches(Array(pattern.utf8)[...], Array(name.utf8)[...])
  }

  static func matches(_ pattern: ArraySlice<UInt8>, _ name: ArraySlice<UInt8>) -> Bool {
    guard let first = pattern.first else { return name.isEmpty }
    let star = UInt8(ascii: "*")
    if first == star {
      let across = pattern.dropFirst().first == star
      let rest = pattern.dropFirst(across ? 2 : 1)
      var candidate = name
      while true {
        if matches(rest, candidate) { return true }
        guard let next = candidate.first, across || next != UInt8(ascii: ":") else { return false }
        candidate = candidate.dropFirst()
      }
    }
    guard let next = name.first, next == first else { return false }
    return matches(pattern.dropFirst(), name.dropFirst())
  }
}
