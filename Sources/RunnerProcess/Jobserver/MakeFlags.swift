/// `MAKEFLAGS` as GNU make writes it for a recipe: the flag letters first (` ` when none),
/// then ` -jN --jobserver-auth=…`, then ` -- NAME=value` for variables set on its command
/// line. Read and rewritten here for a jobserver.
package enum MakeFlags {
  /// Where a jobserver's tokens are.
  package enum Auth: Sendable, Equatable, CustomStringConvertible {
    /// `fifo:PATH` (GNU make 4.4).
    case fifo(String)
    /// `R,W`: descriptors the process inherited (GNU make 4.2 and 4.3; 3.x and 4.1 wrote
    /// `--jobserver-fds`).
    case descriptors(read: Int32, write: Int32)

    package var description: String {
      switch self {
      case .fifo(let path): "fifo:\(path)"
      case .descriptors(let read, let write): "\(read),\(write)"
      }
    }
  }

  /// The jobserver `value` names: the last `--jobserver-auth` or `--jobserver-fds`, as make and
  /// ninja read it. Nil without one, with negative descriptors (make's "none"), or under `-n`
  /// (the flag letters hold `n`: nothing is to run).
  package static func auth(in value: String) -> Auth? {
    let words = options(of: value)
    if let letters = words.first, !letters.hasPrefix("-"), letters.contains("n") { return nil }
    var found: Auth?
    for word in words {
      let text: Substring
      if word.hasPrefix("--jobserver-auth=") {
        text = word.dropFirst("--jobserver-auth=".count)
      } else if word.hasPrefix("--jobserver-fds=") {
        text = word.dropFirst("--jobserver-fds=".count)
      } else {
        continue
      }
      if text.hasPrefix("fifo:") {
        let path = String(text.dropFirst(5))
        found = path.isEmpty ? nil : .fifo(path)
        continue
      }
      let pair = text.split(separator: ",", omittingEmptySubsequences: false)
      if pair.count == 2, let read = Int32(pair[0]), let write = Int32(pair[1]), read >= 0, write >= 0 {
        found = .descriptors(read: read, write: write)
      } else {
        found = nil
      }
    }
    return found
  }

  /// The number `-jN` gives; nil without one (or a bare `-j`: no limit).
  package static func jobs(in value: String) -> Int? {
    var found: Int?
    for word in options(of: value) where word.hasPrefix("-j") {
      found = Int(word.dropFirst(2)).flatMap { $0 > 0 ? $0 : nil }
    }
    return found
  }

  /// `value` without the jobserver it names (and the `-jN` beside it, which is the jobserver's);
  /// unchanged when it names none, nil when nothing else is left.
  package static func removingJobserver(_ value: String) -> String? {
    let (options, variables) = split(value)
    guard options.contains(where: { isJobserverWord($0) && !$0.hasPrefix("-j") }) else { return value }
    let kept = options.filter { !isJobserverWord($0) }
    if !kept.contains(where: { !$0.isEmpty }), variables == nil { return nil }
    return join(kept, variables: variables)
  }

  /// `value` (the task's own `MAKEFLAGS`, if any) with `-jN --jobserver-auth=AUTH` in place of
  /// whatever it said about jobs, as make writes it: ` -j4 --jobserver-auth=fifo:/tmp/…`.
  package static func adding(jobs: Int, auth: Auth, to value: String?) -> String {
    // The usual case, once a task: no flags of its own.
    guard let value, !value.isEmpty else { return " -j\(jobs) --jobserver-auth=\(auth)" }
    let (options, variables) = split(value)
    var kept = options.filter { !isJobserverWord($0) }
    if kept.isEmpty || kept[0].hasPrefix("-") { kept.insert("", at: 0) }
    kept += ["-j\(jobs)", "--jobserver-auth=\(auth)"]
    return join(kept, variables: variables)
  }

  private static func isJobserverWord(_ word: Substring) -> Bool {
    word.hasPrefix("-j") || word.hasPrefix("--jobserver-auth=") || word.hasPrefix("--jobserver-fds=")
  }

  /// The option words, before ` -- ` (what follows sets variables).
  private static func options(of value: String) -> [Substring] { split(value).options }

  /// The words before ` -- ` (the first one empty when the value begins with a space: no flag
  /// letters), and the rest from `--` on, as written.
  private static func split(_ value: String) -> (options: [Substring], variables: Substring?) {
    var head = Substring(value)
    var variables: Substring?
    if let range = value.firstRange(of: " -- ") {
      head = value[..<range.lowerBound]
      variables = value[value.index(after: range.lowerBound)...]
    } else if value.hasPrefix("-- ") {
      head = ""
      variables = Substring(value)
    }
    let words = head.split(whereSeparator: { $0 == " " || $0 == "\t" })
    let options = head.first.map { $0 == " " || $0 == "\t" } ?? false ? [""] + words : words
    return (options, variables)
  }

  private static func join(_ options: [Substring], variables: Substring?) -> String {
    var text = options.joined(separator: " ")
    if let variables { text += (options.isEmpty ? "" : " ") + variables }
    return text
  }
}
