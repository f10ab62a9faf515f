/// The `tasks` mapping, entry by entry: the parser hands each over as soon as it is parsed
/// (`YAMLEntrySink`), and `decode(_:)` adds those the mapping still holds (merged in by `<<`).
extension TaskFileDecoder {
  /// Decodes one entry of the `tasks` mapping. Its errors wait in `reader` until `decode(_:)`
  /// puts them in file order.
  mutating func take(_ entry: consuming YAMLEntry) {
    let name = entry.name
    guard checkName(name, at: entry.key) else {
      rejectedNames[name] = rejectedNames[name] ?? entry.key.location
      return
    }
    var task = TaskDefinition(name: name, location: entry.key.location, index: streamed.count)
    decodeTask(&task, entry.value)
    streamed.append(consume task)
    streamedNames.insert(streamed.count - 1, in: streamed)
  }

  func place(of name: String) -> SourceLocation? {
    rejectedNames[name] ?? streamedNames.index(of: name, in: streamed).map { streamed[$0].location }
  }

  /// The tasks taken so far, then those the `tasks` mapping still holds, taken out of `slot`
  /// (left null) so that each task's nodes go as soon as it is decoded; `streamedNames` is
  /// their index.
  mutating func tasks(taking slot: inout YAMLNode) -> [TaskDefinition] {
    var node = YAMLNode(.scalar("", plain: true), at: slot.location)
    swap(&node, &slot)
    if !node.isNull, var entries = reader.mapping(node, what: "'tasks'") {
      // Let go of the mapping, so that the entries are not shared and each task's value can
      // be moved out of them.
      _ = consume node
      for position in entries.indices {
        let key = entries[position].key
        var entry = YAMLEntry(key: key, value: YAMLNode(.scalar("", plain: true), at: key.location))
        swap(&entry.value, &entries[position].value)
        take(entry)
      }
    }
    var result: [TaskDefinition] = []
    swap(&result, &streamed)
    return result
  }

  /// The index of the tasks `tasks(taking:)` returned, for the graph (set after `tasks`, whose
  /// change lets an index go); none when it was sized for many more tasks than the file has (a
  /// large file of long tasks).
  mutating func takenNames() -> NameIndex? {
    defer { streamedNames = NameIndex() }
    return streamedNames.isSparse ? nil : streamedNames
  }
}
