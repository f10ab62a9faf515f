import RunnerModel

/// For `--affected`: which tasks of a changed task file changed. Each task's YAML is compared
/// with the file as it was at the base, as content (comments, layout and anchors make no
/// difference): editing a comment, or one task, no longer marks every task of the file.
struct AffectedDefinitions {
  /// By changed task file (as `AffectedTasks` names files: absolute, canonical): the names of
  /// its tasks, as written there, whose definitions changed; nil when every task of the file
  /// counts as changed (a key besides `tasks` changed, the file is new at the base, or either
  /// version does not parse).
  var changedTasks: [String: Set<String>?] = [:]

  /// Compares each of `files` (task files that changed) with its version at `base`, a commit
  /// git knows, in the repository at `root`.
  static func find(files: [String], base: String, root: String) async -> AffectedDefinitions {
    var result = AffectedDefinitions()
    for file in files {
      let relative = file.hasPrefix(root + "/") ? String(file.dropFirst(root.count + 1)) : file
      guard case .success(let old) = await AffectedTasks.git(["show", "\(base):\(relative)"], in: root),
        let now = try? FileReader.read(file)
      else {
        result.changedTasks[file] = .some(nil)
        continue
      }
      result.changedTasks[file] = .some(changed(from: Array(old.utf8), to: now, file: file))
    }
    return result
  }

  /// The tasks whose content differs between the two versions; nil for all of them.
  static func changed(from old: [UInt8], to new: [UInt8], file: String) -> Set<String>? {
    let parser = YAMLParser(file: file)
    guard case .mapping(let before)? = (try? parser.parse(old))??.kind,
      case .mapping(let after)? = (try? parser.parse(new))??.kind
    else { return nil }
    let (oldTasks, oldRest) = split(before)
    let (newTasks, newRest) = split(after)
    guard oldRest.count == newRest.count,
      oldRest.allSatisfy({ entry in newRest[entry.key].map { $0.hasSameContent(as: entry.value) } ?? false })
    else { return nil }
    var changed = Set<String>()
    for (name, node) in newTasks where !(oldTasks[name].map(node.hasSameContent) ?? false) { changed.insert(name) }
    return changed
  }

  /// The `tasks` mapping's entries by name, and the file's other keys.
  static func split(_ entries: [YAMLEntry]) -> (tasks: [String: YAMLNode], rest: [String: YAMLNode]) {
    var tasks: [String: YAMLNode] = [:]
    var rest: [String: YAMLNode] = [:]
    for entry in entries {
      if entry.name == "tasks", case .mapping(let list) = entry.value.kind {
        for task in list { tasks[task.name] = task.value }
      } else {
        rest[entry.name] = entry.value
      }
    }
    return (tasks, rest)
  }
}

extension YAMLNode {
  /// The same content, wherever it stands: the same kinds, scalars (and whether each is plain)
  /// and keys in the same order.
  func hasSameContent(as other: YAMLNode) -> Bool {
    switch (kind, other.kind) {
    case (.scalar(let text, let plain), .scalar(let otherText, let otherPlain)):
      return text == otherText && plain == otherPlain
    case (.sequence(let items), .sequence(let otherItems)):
      return items.count == otherItems.count && zip(items, otherItems).allSatisfy { $0.hasSameContent(as: $1) }
    case (.mapping(let entries), .mapping(let otherEntries)):
      return entries.count == otherEntries.count
        && zip(entries, otherEntries).allSatisfy { $0.name == $1.name && $0.value.hasSameContent(as: $1.value) }
    default:
      return false
    }
  }
}
