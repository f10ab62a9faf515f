import CYaml
import Glibc

/// Reads YAML text into a `YAMLNode` tree through libyaml's event API.
///
/// The event API, rather than libyaml's document loader, lets runner own what the loader
/// gets wrong for a task file: duplicate keys are rejected (libyaml accepts them silently),
/// aliases are expanded under a budget relative to the file's size (so "billion laughs"
/// fails in microseconds, at its alias, while a plain file of any size loads),
/// a recursive alias is an error, and `<<` merge keys are resolved.
package struct YAMLParser {
  /// The fewest nodes aliases may always add by expansion; a larger file may add one per
  /// byte of its text. Nodes written out in the file are not limited (memory is).
  static let defaultAliasBudget = 1_000_000
  /// The deepest nesting of sequences and mappings accepted.
  ///
  /// libyaml's scanner is quadratic in flow nesting depth (40 000 `[` take seconds), so the
  /// parse stops at the first collection past this depth; a task file needs fewer than ten.
  static let maximumDepth = 256

  let file: String
  var aliasBudget = YAMLParser.defaultAliasBudget

  package init(file: String) { self.file = file }

  /// Parses the first document of `bytes`; returns nil for a stream with no document.
  ///
  /// - Throws: `Diagnostic` pointing at the offending place.
  package func parse(_ bytes: [UInt8]) throws(Diagnostic) -> YAMLNode? {
    var none = NoSink()
    return try parse(bytes, streaming: "", to: &none)
  }

  /// Parses as `parse(_:)` does, but hands each entry of the root mapping's `key` mapping to
  /// `sink` as soon as it is parsed, instead of keeping it in the tree (that mapping is left
  /// holding only its `<<` merges). A task file's `tasks` mapping is most of a large file:
  /// streamed, its tree is never held whole.
  func parse<Sink: YAMLEntrySink>(_ bytes: [UInt8], streaming key: String, to sink: inout Sink) throws(Diagnostic)
    -> YAMLNode?
  {
    try bytes.withUnsafeBufferPointer { buffer throws(Diagnostic) in
      try parse(budget: bytes.count, streaming: key, to: &sink) {
        yaml_parser_set_input_string(&$0, buffer.baseAddress, buffer.count)
      }
    }
  }

  /// Parses as `parse(_:streaming:to:)` does, reading the text from `descriptor` as the
  /// parser needs it (libyaml's buffer: 16 KiB), so that it is never held whole.
  ///
  /// - Parameter size: the file's size, which sets the alias budget.
  /// - Throws: `Diagnostic` as the other parse does; a read that fails or passes `limit`
  ///   bytes is a syntax error at the place reached.
  func parse<Sink: YAMLEntrySink>(
    reading descriptor: Int32, size: Int, limit: Int, streaming key: String, to sink: inout Sink
  ) throws(Diagnostic) -> YAMLNode? {
    var source = DescriptorSource(descriptor: descriptor, limit: limit)
    return try withUnsafeMutablePointer(to: &source) { pointer throws(Diagnostic) in
      try parse(budget: size, streaming: key, to: &sink) {
        yaml_parser_set_input(&$0, DescriptorSource.read, pointer)
      }
    }
  }

  private func parse<Sink: YAMLEntrySink>(
    budget size: Int, streaming key: String, to sink: inout Sink, input: (inout yaml_parser_t) -> Void
  ) throws(Diagnostic) -> YAMLNode? {
    var parser = yaml_parser_t()
    guard yaml_parser_initialize(&parser) == 1 else {
      throw Diagnostic.error(.syntax(problem: "libyaml could not be initialised", context: nil), at: nil)
    }
    defer { yaml_parser_delete(&parser) }
    var builder = Builder(file: file, budget: max(aliasBudget, size), streamedKey: key, sink: sink)
    defer { sink = builder.sink }
    input(&parser)
    return try builder.run(&parser)
  }
}

/// A file descriptor libyaml reads through its input handler.
private struct DescriptorSource {
  let descriptor: Int32
  let limit: Int
  var total = 0

  static let read:
    @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int, UnsafeMutablePointer<Int>?)
      -> Int32 = { data, buffer, size, sizeRead in
        guard let source = data?.assumingMemoryBound(to: DescriptorSource.self), let sizeRead else { return 0 }
        while true {
          let count = Glibc.read(source.pointee.descriptor, buffer, size)
          if count < 0, errno == EINTR { continue }
          guard count >= 0 else { return 0 }
          source.pointee.total += count
          guard source.pointee.total <= source.pointee.limit else { return 0 }
          sizeRead.pointee = count
          return 1
        }
      }
}

/// Receives the entries of a streamed mapping, in file order (`YAMLParser.parse(_:streaming:to:)`).
package protocol YAMLEntrySink {
  mutating func take(_ entry: consuming YAMLEntry)
  /// Where the entry named `name` was taken: the first place of a duplicate key.
  func place(of name: String) -> SourceLocation?
}

/// The sink of a parse that streams nothing.
struct NoSink: YAMLEntrySink {
  func take(_ entry: consuming YAMLEntry) {}
  func place(of name: String) -> SourceLocation? { nil }
}

extension YAMLParser {
  /// Turns the event stream into nodes with an explicit stack (no recursion: deep nesting is safe).
  fileprivate struct Builder<Sink: YAMLEntrySink> {
    /// An open sequence or mapping.
    struct Frame {
      var isMapping: Bool
      var anchor: String?
      var location: SourceLocation
      var items: [YAMLNode] = []
      var entries: [YAMLEntry] = []
      /// Where each key of a large mapping was first written: duplicate detection in O(1).
      /// A small mapping (most of them) is searched instead: no dictionary per mapping.
      var keys: [String: SourceLocation] = [:]
      var pendingKey: YAMLNode?
      var weight = 1
      /// The streamed mapping: its entries go to the sink, which knows their names.
      var streamed = false

      static var searchedKeys: Int { 16 }

      /// Where `name` was already written as a key of this mapping, if it was; else records
      /// `location` as its place.
      mutating func firstPlace(of name: String, at location: SourceLocation) -> SourceLocation? {
        if entries.count < Self.searchedKeys {
          return entries.first { YAMLParser.keyText($0.key) == name && !YAMLParser.isMerge($0.key) }?.key.location
        }
        if keys.isEmpty {
          for entry in entries where !YAMLParser.isMerge(entry.key) {
            keys[YAMLParser.keyText(entry.key)] = keys[YAMLParser.keyText(entry.key)] ?? entry.key.location
          }
        }
        if let first = keys[name] { return first }
        keys[name] = location
        return nil
      }
    }

    let file: SourceFile
    let budget: Int
    /// The key of the root mapping whose mapping is streamed to `sink` ("" for none).
    let streamedKey: String
    var sink: Sink
    var stack: [Frame] = []
    var anchors: [String: YAMLNode] = [:]
    /// Anchors whose node is still open: an alias to one of them is recursive.
    var openAnchors: Set<String> = []
    /// Nodes added by expanding aliases, against `budget`.
    var expanded = 0
    var root: YAMLNode?
    var documents = 0

    init(file: String, budget: Int, streamedKey: String, sink: Sink) {
      self.file = SourceFile(file)
      self.budget = budget
      self.streamedKey = streamedKey
      self.sink = sink
    }

    func location(_ mark: yaml_mark_t) -> SourceLocation {
      SourceLocation(file: file, line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    mutating func run(_ parser: inout yaml_parser_t) throws(Diagnostic) -> YAMLNode? {
      var event = yaml_event_t()
      while true {
        guard yaml_parser_parse(&parser, &event) == 1 else { throw syntaxError(parser) }
        defer { yaml_event_delete(&event) }
        let at = location(event.start_mark)
        switch event.type {
        case YAML_STREAM_END_EVENT:
          return root
        case YAML_DOCUMENT_START_EVENT:
          documents += 1
          if documents > 1 {
            throw Diagnostic.error(.multipleDocuments, at: at)
          }
        case YAML_SCALAR_EVENT:
          let scalar = event.data.scalar
          let text = string(scalar.value, length: scalar.length)
          let plain = scalar.style == YAML_PLAIN_SCALAR_STYLE
          try add(YAMLNode(.scalar(text, plain: plain), at: at), anchor: string(scalar.anchor))
        case YAML_ALIAS_EVENT:
          let name = string(event.data.alias.anchor) ?? ""
          if openAnchors.contains(name) { throw Diagnostic.error(.recursiveAlias(name), at: at) }
          guard var node = anchors[name] else { throw Diagnostic.error(.undefinedAlias(name), at: at) }
          node.location = at
          expanded += node.weight
          if expanded > budget { throw Diagnostic.error(.aliasBudgetExceeded(budget), at: at) }
          try add(node, anchor: nil)
        case YAML_SEQUENCE_START_EVENT:
          if stack.count >= YAMLParser.maximumDepth {
            throw Diagnostic.error(.tooDeep(limit: YAMLParser.maximumDepth), at: at)
          }
          let anchor = string(event.data.sequence_start.anchor)
          if let anchor { openAnchors.insert(anchor) }
          stack.append(Frame(isMapping: false, anchor: anchor, location: at))
        case YAML_MAPPING_START_EVENT:
          if stack.count >= YAMLParser.maximumDepth {
            throw Diagnostic.error(.tooDeep(limit: YAMLParser.maximumDepth), at: at)
          }
          let anchor = string(event.data.mapping_start.anchor)
          if let anchor { openAnchors.insert(anchor) }
          var frame = Frame(isMapping: true, anchor: anchor, location: at)
          // An anchored one is not streamed: an alias to it must expand to all of it.
          frame.streamed =
            anchor == nil && !streamedKey.isEmpty && stack.count == 1 && stack[0].isMapping
            && stack[0].pendingKey.map(YAMLParser.keyText) == streamedKey
          stack.append(frame)
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
          guard let frame = stack.popLast() else { continue }
          if let anchor = frame.anchor { openAnchors.remove(anchor) }
          let kind: YAMLNode.Kind =
            frame.isMapping
            ? .mapping(
              try YAMLParser.resolveMerges(frame.entries) { frame.streamed && sink.place(of: $0) != nil })
            : .sequence(frame.items)
          try add(YAMLNode(kind, at: frame.location, weight: frame.weight), anchor: frame.anchor)
        default:
          continue
        }
      }
    }

    /// Attaches a finished node to its parent (or makes it the root) and records its anchor.
    ///
    mutating func add(_ node: YAMLNode, anchor: String?) throws(Diagnostic) {
      if let anchor { anchors[anchor] = node }
      // Mutated in place through the subscript, never copied: a copy would make every append
      // copy the collection built so far (quadratic in a large mapping).
      guard !stack.isEmpty else {
        root = node
        return
      }
      let top = stack.count - 1
      stack[top].weight += node.weight
      if !stack[top].isMapping {
        stack[top].items.append(node)
      } else if let key = stack[top].pendingKey {
        stack[top].pendingKey = nil
        let name = YAMLParser.keyText(key)
        if YAMLParser.isMerge(key) {
          stack[top].entries.append(YAMLEntry(key: key, value: node))
        } else if stack[top].streamed {
          if let first = sink.place(of: name) {
            throw Diagnostic.error(.duplicateKey(name, first: first), at: key.location)
          }
          sink.take(YAMLEntry(key: key, value: node))
        } else {
          if let first = stack[top].firstPlace(of: name, at: key.location) {
            throw Diagnostic.error(.duplicateKey(name, first: first), at: key.location)
          }
          stack[top].entries.append(YAMLEntry(key: key, value: node))
        }
      } else {
        guard case .scalar = node.kind else { throw Diagnostic.error(.nonScalarKey, at: node.location) }
        stack[top].pendingKey = node
      }
    }

    func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?, length: Int? = nil) -> String {
      guard let pointer else { return "" }
      let count = length ?? strlen(pointer)
      return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
      guard let pointer else { return nil }
      return String(decoding: UnsafeBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
    }

    func strlen(_ pointer: UnsafeMutablePointer<yaml_char_t>) -> Int {
      var count = 0
      while pointer[count] != 0 { count += 1 }
      return count
    }

    func syntaxError(_ parser: yaml_parser_t) -> Diagnostic {
      let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
      let context = parser.context.map { String(cString: $0) }
      var notes: [Diagnostic] = []
      if let context {
        notes.append(.note(context, at: location(parser.context_mark)))
      }
      return Diagnostic.error(
        .syntax(problem: problem, context: context), at: location(parser.problem_mark), notes: notes)
    }
  }
}

extension YAMLParser {
  static func keyText(_ key: YAMLNode) -> String {
    if case .scalar(let text, _) = key.kind { return text }
    return ""
  }

  /// Applies YAML merge keys: `<<: *base` or `<<: [*a, *b]`; keys written in the mapping win.
  /// `streamed`: whether an entry of that name was streamed out of the mapping (merges do
  /// not override it).
  static func resolveMerges(_ entries: [YAMLEntry], streamed: (String) -> Bool = { _ in false }) throws(Diagnostic)
    -> [YAMLEntry]
  {
    guard entries.contains(where: { $0.name == "<<" && isPlain($0.key) }) else { return entries }
    var result = entries.filter { !($0.name == "<<" && isPlain($0.key)) }
    var present = Set(result.map(\.name))
    for merge in entries where merge.name == "<<" && isPlain(merge.key) {
      let sources: [YAMLNode]
      switch merge.value.kind {
      case .mapping: sources = [merge.value]
      case .sequence(let items): sources = items
      case .scalar: throw Diagnostic.error(.badMerge, at: merge.value.location)
      }
      for source in sources {
        guard case .mapping(let inherited) = source.kind else {
          throw Diagnostic.error(.badMerge, at: source.location)
        }
        for entry in inherited where !present.contains(entry.name) && !streamed(entry.name) {
          present.insert(entry.name)
          result.append(entry)
        }
      }
    }
    return result
  }

  /// A plain `<<` key: a merge, which may appear more than once.
  static func isMerge(_ key: YAMLNode) -> Bool {
    keyText(key) == "<<" && isPlain(key)
  }

  static func isPlain(_ node: YAMLNode) -> Bool {
    if case .scalar(_, plain: true) = node.kind { return true }
    return false
  }
}

extension YAMLParser {
  /// The document's content as a canonical byte string: every event libyaml reports, with its
  /// anchor, tag, value and scalar style, and nothing of where it stood. Comments, blank lines,
  /// indentation and flow or block layout leave it unchanged; any change of meaning changes it.
  /// This is how runner tells a task file edited without changing any task from one whose
  /// tasks changed, without decoding it.
  ///
  /// - Returns: nil when the bytes are not what the loader accepts: well-formed YAML in UTF-8
  ///   (libyaml also reads UTF-16, which the loader refuses), nested no deeper than it allows.
  package static func canonicalContent(_ bytes: [UInt8]) -> [UInt8]? {
    guard TaskFileLoader.firstInvalidUTF8(bytes) == nil else { return nil }
    var depth = 0
    var parser = yaml_parser_t()
    guard yaml_parser_initialize(&parser) == 1 else { return nil }
    defer { yaml_parser_delete(&parser) }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    func field(_ pointer: UnsafeMutablePointer<UInt8>?, length: Int? = nil) {
      guard let pointer else {
        out.append(0)
        return
      }
      let count = length ?? strlen(pointer)
      out.append(1)
      withUnsafeBytes(of: UInt64(count).littleEndian) { out.append(contentsOf: $0) }
      out.append(contentsOf: UnsafeBufferPointer(start: pointer, count: count))
    }
    return bytes.withUnsafeBufferPointer { buffer -> [UInt8]? in
      yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
      var event = yaml_event_t()
      while true {
        guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
        defer { yaml_event_delete(&event) }
        out.append(UInt8(truncatingIfNeeded: event.type.rawValue))
        switch event.type {
        case YAML_STREAM_END_EVENT:
          return out
        case YAML_SCALAR_EVENT:
          let scalar = event.data.scalar
          field(scalar.anchor)
          field(scalar.tag)
          field(scalar.value, length: scalar.length)
          out.append(UInt8(truncatingIfNeeded: scalar.style.rawValue))
          out.append(UInt8(scalar.plain_implicit))
          out.append(UInt8(scalar.quoted_implicit))
        case YAML_ALIAS_EVENT:
          field(event.data.alias.anchor)
        case YAML_STREAM_START_EVENT:
          out.append(UInt8(truncatingIfNeeded: event.data.stream_start.encoding.rawValue))
        case YAML_SEQUENCE_START_EVENT:
          depth += 1
          guard depth <= maximumDepth else { return nil }
          field(event.data.sequence_start.anchor)
          field(event.data.sequence_start.tag)
        case YAML_MAPPING_START_EVENT:
          depth += 1
          guard depth <= maximumDepth else { return nil }
          field(event.data.mapping_start.anchor)
          field(event.data.mapping_start.tag)
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
          depth -= 1
        default:
          break
        }
      }
    }
  }
}
