import Glibc
import Synchronization

/// The values a task file marks as secret, replaced by `***` wherever runner shows or keeps
/// text: task output (console, CI reports, events, cache logs, uploads), the plan, `--describe`
/// and the graph's JSON, as GitHub Actions masks secrets.
///
/// Each line of a value is masked on its own (a multi-line key is masked line by line); lines
/// shorter than `minimumLength` are not, since masking every `1` or `on` would hide more than
/// it protects.
package struct SecretMask: Sendable {
  package static let none = SecretMask(values: [])
  package static let minimumLength = 3
  package static let replacement: [UInt8] = Array("***".utf8)

  /// The lines to mask, longest first (a value that contains another is masked whole).
  let patterns: [[UInt8]]

  package init(values: some Sequence<String>) {
    var lines = Set<[UInt8]>()
    for value in values {
      for line in value.utf8.split(separator: 0x0A) {
        var bytes = Array(line)
        while bytes.last == 0x0D { bytes.removeLast() }
        if bytes.count >= Self.minimumLength { lines.insert(bytes) }
      }
    }
    patterns = lines.sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) }
  }

  private init(patterns: [[UInt8]]) { self.patterns = patterns }

  package var isEmpty: Bool { patterns.isEmpty }

  /// The length of the longest line masked (0 for none): a cut in a stream of bytes keeps
  /// this many less one back, so a secret across the cut is still masked whole.
  package var longest: Int { patterns.first?.count ?? 0 }

  /// This mask with each value also as the formats runner writes escape it: a JSON string
  /// (the events file, the trace), XML (JUnit, the timeline) and a GitHub workflow command's
  /// data and properties. A sink that masks bytes sees the escaped form, so a secret holding
  /// `"`, `\`, `&`, `<`, `%` or `:` is still masked there.
  package func withEscapedForms() -> SecretMask {
    var values: [String] = []
    for pattern in patterns {
      let text = String(decoding: pattern, as: UTF8.self)
      var quoted = ""
      JSONValue.escape(text, into: &quoted)
      let json = String(quoted.dropFirst().dropLast())
      var data = ""
      for scalar in text.unicodeScalars {
        switch scalar {
        case "%": data += "%25"
        case "\r": data += "%0D"
        default: data.unicodeScalars.append(scalar)
        }
      }
      let property = data.replacing(":", with: "%3A").replacing(",", with: "%2C")
      values += [text, json, MarkupText.xml(text), data, property]
    }
    return SecretMask(values: values)
  }

  /// This mask and `other`'s values.
  package func union(_ other: SecretMask) -> SecretMask {
    guard !other.isEmpty else { return self }
    guard !isEmpty else { return other }
    let lines = Set(patterns).union(other.patterns)
    return SecretMask(
      patterns: lines.sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) })
  }

  /// `bytes` with every secret replaced; nil when none occurs (the caller keeps its bytes).
  package func masked(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
    guard !patterns.isEmpty, let first = firstMatch(in: bytes, from: 0) else { return nil }
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    var position = 0
    var match: (offset: Int, length: Int)? = first
    while let (offset, length) = match {
      result.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[position..<offset]))
      result.append(contentsOf: Self.replacement)
      position = offset + length
      match = firstMatch(in: bytes, from: position)
    }
    result.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[position...]))
    return result
  }

  /// `text` with every secret replaced.
  package func masking(_ text: String) -> String {
    guard !patterns.isEmpty else { return text }
    var text = text
    return text.withUTF8 { bytes in
      masked(UnsafeRawBufferPointer(bytes)).map { String(decoding: $0, as: UTF8.self) }
    } ?? text
  }

  /// Whether any secret occurs in `text`.
  package func reveals(_ text: String) -> Bool {
    guard !patterns.isEmpty else { return false }
    var text = text
    return text.withUTF8 { firstMatch(in: UnsafeRawBufferPointer($0), from: 0) != nil }
  }

  /// The earliest occurrence of any pattern at or after `start` (the longest one there).
  private func firstMatch(in bytes: UnsafeRawBufferPointer, from start: Int) -> (offset: Int, length: Int)? {
    guard let base = bytes.baseAddress, start < bytes.count else { return nil }
    var best: (offset: Int, length: Int)?
    for pattern in patterns {
      let limit = best.map { min($0.offset + pattern.count, bytes.count) } ?? bytes.count
      guard limit - start >= pattern.count else { continue }
      guard let offset = Self.find(pattern, in: base, from: start, to: limit) else { continue }
      if best == nil || offset < best!.offset { best = (offset, pattern.count) }
    }
    return best
  }

  /// The first offset in `start..<end` where `needle` begins and ends before `end`: `memchr`
  /// to its first byte, then `memcmp`.
  private static func find(_ needle: [UInt8], in base: UnsafeRawPointer, from start: Int, to end: Int) -> Int? {
    needle.withUnsafeBytes { needle -> Int? in
      let first = Int32(needle[0])
      var position = start
      while end - position >= needle.count {
        guard let hit = memchr(base + position, first, end - position - needle.count + 1) else { return nil }
        let offset = base.distance(to: UnsafeRawPointer(hit))
        if memcmp(hit, needle.baseAddress!, needle.count) == 0 { return offset }
        position = offset + 1
      }
      return nil
    }
  }
}

/// The secrets of this process's run, masked by every sink of runner's own text (the console
/// and standard error, report files, the events file), after whatever masked them at their
/// source: a library's error, a warning or a name that quotes a secret is still not printed.
/// Set once the task file is loaded (`hide`), and for remote headers.
package enum PrintMask {
  private static let current = Mutex(SecretMask.none)
  /// Whether `current` holds anything: read without the lock on every write (most runs have
  /// no secret, and the console writes once per read of a task's output).
  private static let hidesAnything = Atomic(false)

  package static var mask: SecretMask { current.withLock { $0 } }

  /// Masks `mask`'s values too, from now on.
  package static func hide(_ mask: SecretMask) {
    guard !mask.isEmpty else { return }
    let escaped = mask.withEscapedForms()
    current.withLock { $0 = $0.union(escaped) }
    hidesAnything.store(true, ordering: .releasing)
  }

  /// Calls `body` with `bytes`, or with a masked copy when they hold a secret.
  package static func withMasked<R>(
    _ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R
  ) -> R {
    guard hidesAnything.load(ordering: .acquiring) else { return body(bytes) }
    let mask = Self.mask
    guard !mask.isEmpty, let masked = mask.masked(UnsafeRawBufferPointer(bytes)) else { return body(bytes) }
    return masked.withUnsafeBufferPointer(body)
  }
}
