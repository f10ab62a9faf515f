extension SourceGlob {
  /// Whether `patterns` take the file at `path` (absolute) for a task whose directory is
  /// `base`, without walking: what `expand` would find if the file exists (a pattern naming a
  /// directory covers what is under it; `!` patterns exclude). For `--affected`.
  package static func covers(_ patterns: [String], path: String, base: String) -> Bool {
    let absolute = path.split(separator: "/").map(String.init)
    let root = base.split(separator: "/").map(String.init)
    let relative = absolute.starts(with: root) ? Array(absolute.dropFirst(root.count)) : nil
    func matches(_ written: String) -> Bool {
      expandBraces(written).contains { pattern in
        let segments = pattern.split(separator: "/").map(String.init).filter { $0 != "." }
        if pattern.hasPrefix("/") { return pathMatches(segments[...], absolute[...]) }
        if segments.contains("..") {
          // `../lib/**` from the task's directory: resolved against it, matched whole.
          var resolved = root
          for segment in segments {
            if segment == "..", let last = resolved.last, last != "**" {
              resolved.removeLast()
            } else {
              resolved.append(segment)
            }
          }
          return pathMatches(resolved[...], absolute[...])
        }
        guard let relative else { return false }
        // As `expand`: a wildcard never takes a hidden name, `.git` and `.runner` never count;
        // a hidden name is taken when the pattern spells it, or under a directory named outright.
        let literal = !segments.contains(where: isWildcard)
        for name in relative where name.hasPrefix(".") {
          if neverEntered.contains(name) || !(literal || segments.contains(name)) { return false }
        }
        return pathMatches(segments[...], relative[...])
      }
    }
    let included = patterns.contains { !$0.hasPrefix("!") && matches($0) }
    return included && !patterns.contains { $0.hasPrefix("!") && matches(String($0.dropFirst())) }
  }
}
