import RunnerBasics
import RunnerModel

/// A cacheable task as a REAPI v2 Action: its digest is the task's key, in the local cache and
/// in a remote one alike.
///
/// - The Command: the argv runner runs (the shell's with the script, or the words exec'd
///   directly; a `run` list is one script, each command in a subshell under the same
///   `errexit`), or `["runner-image-step", <the steps as canonical JSON>]` for an image task;
///   the declared environment, by name; the declared output patterns; the task's `dir` as the
///   working directory.
/// - The input root: the source files, at their paths from the task file's directory, each
///   with its digest and executable bit.
/// - The salt: what REAPI has no field for — the key format, the patterns as written, what the
///   dependencies hand on, and sources outside the task file's directory.
///
/// Nothing absolute enters it, so two checkouts at different paths agree.
package struct ActionKey: Sendable {
  package var command: ActionMessages.Command
  /// The input root's directories, the root first, each encoded (the blobs a server needs).
  package var directories: [[UInt8]]
  package var action: ActionMessages.Action
  /// Whether the input root holds every source and the working directory lies inside it:
  /// what a remote worker needs to run the task.
  package var isSelfContained: Bool
  /// The input root's files, by path from the task file's directory.
  package var files: [InputFile]

  package struct InputFile: Sendable {
    package var path: String
    package var digest: ActionMessages.Digest
    package var executable: Bool

    package init(path: String, digest: ActionMessages.Digest, executable: Bool) {
      self.path = path
      self.digest = digest
      self.executable = executable
    }
  }

  /// The key's own format: a change makes every task run (or restore) once.
  static let format = "runner-key-6"

  /// - Parameters:
  ///   - environment: the declared environment, as the task sees it (unset variables left out).
  ///   - dependencies: the digest of what the dependencies hand on (`Fingerprint.dependencies`).
  ///   - sources: the source files found, relative to the task's directory.
  ///   - discovered: for a task with a `depfile` or `sources: auto`, the files its last run found
  ///     it read, hashed now; nil when no run has recorded them (a key no run stores under).
  package init(
    task: TaskDefinition, environment: [(name: String, value: String)], dependencies: String, sources: [FileRecord],
    discovered: [FileRecord]? = nil
  ) {
    let directory = Self.normalized(task.directory ?? ".")
    var salt = ContentHasher()
    salt.add(Self.format)
    Fingerprint.addPatterns(of: task, to: &salt)
    Fingerprint.addWhole(of: task, to: &salt)
    // A traced task's key holds what it read of its dependencies' files, by content, and their
    // values reach it only through its environment: what they hand on as a whole is not in it
    // (the exact early cut-off).
    if !task.sourcesAuto { salt.add(dependencies) }
    if directory == nil { salt.add("dir " + (task.directory ?? "")) }
    // Turned on, the sandbox checks the task once: a run kept from before it says nothing.
    if task.sandboxStrict { salt.add("sandbox strict") }
    var command = ActionMessages.Command(arguments: Self.arguments(of: task))
    command.environment = environment
    command.outputPaths = Array(
      Set(Fingerprint.outputPatterns(of: task) + (task.wholeTask.map { $0.key.isEmpty ? [] : $0.outputs } ?? [])))
    command.workingDirectory = directory ?? ""
    var files: [InputFile] = []
    var selfContained = directory != nil
    var inputs = sources
    if task.discoversInputs {
      if let depfile = task.depfile { salt.add("depfile " + depfile) }
      if task.sourcesAuto { salt.add("sources auto") }
      if let discovered {
        // A file named by the depfile and by `sources` is in the root once.
        let declared = Set(sources.map(\.path))
        for file in discovered where !declared.contains(file.path) {
          if file.content == nil {
            // A file it read that is gone now, or a path it looked up that was not there.
            salt.add("absent " + file.path)
          } else if file.path.hasSuffix("/") {
            // A directory it listed: its entries' names.
            salt.add("listing " + file.path)
            salt.add(file.content!.hash)
          } else {
            inputs.append(file)
          }
        }
      } else {
        salt.add("inputs not recorded")
      }
    }
    for file in inputs {
      guard let content = file.content else { continue }
      let joined =
        file.path.hasPrefix("/")
        ? nil : Self.normalized(directory.map { $0.isEmpty ? file.path : $0 + "/" + file.path } ?? "")
      guard let path = joined, directory != nil else {
        salt.add("outside " + file.path)
        salt.add(content.hash)
        selfContained = false
        continue
      }
      files.append(
        InputFile(
          path: path, digest: content, executable: file.executable))
    }
    let (root, directories) = InputTree(files).encoded()
    self.files = files
    self.command = command
    self.directories = directories
    action = ActionMessages.Action(command: ActionMessages.Digest(of: command.encoded), inputRoot: root)
    action.salt = Array(salt.finalize().utf8)
    isSelfContained = selfContained
  }

  /// The key: the Action's SHA-256.
  package var digest: ActionMessages.Digest { ActionMessages.Digest(of: action.encoded) }

  /// The argv the task's Command names.
  static func arguments(of task: TaskDefinition) -> [String] {
    switch task.action {
    case .group: return ["runner-group"]
    case .image(let steps):
      return ["runner-image-step", JSONValue.array(steps.map(\.kind.canonical)).serialized()]
    case .shell(let commands):
      let shell = task.shell ?? ShellSetting.standard
      let extra = task.arguments.isEmpty ? [] : [task.name] + task.arguments
      guard commands.count == 1, !commands[0].ignoresError else {
        // One process per command, the first failure ending the task: each command in a
        // subshell, under the shell's own `-e` (`|| true` after one whose failure is ignored).
        return shell + [
          commands.map { "(\n\($0.text)\n)" + ($0.ignoresError ? " || true" : "") }.joined(separator: "\n")
        ]
          + extra
      }
      if ShellSetting.mayBypass(shell), let direct = CommandSplitter.directArguments(commands[0].text) {
        return direct
      }
      return shell + [commands[0].text] + extra
    }
  }

  /// `path` without `.`, empty segments and `..` (nil if it leaves its root, or is absolute).
  package static func normalized(_ path: String) -> String? {
    guard !path.hasPrefix("/") else { return nil }
    var segments: [Substring] = []
    for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
      switch segment {
      case ".": continue
      case "..":
        guard segments.popLast() != nil else { return nil }
      default: segments.append(segment)
      }
    }
    return segments.joined(separator: "/")
  }
}

/// The files of an input root, by path, encoded as REAPI Directory messages.
struct InputTree {
  final class Node {
    var files: [(name: String, digest: ActionMessages.Digest, isExecutable: Bool)] = []
    var children: [String: Node] = [:]
  }

  let root = Node()

  init(_ files: [ActionKey.InputFile]) {
    for file in files { add(file.path, file.digest, executable: file.executable) }
  }

  func add(_ path: String, _ digest: ActionMessages.Digest, executable: Bool) {
    var segments = path.split(separator: "/")
    guard let name = segments.popLast() else { return }
    directory(at: segments).files.append((String(name), digest, executable))
  }

  /// A directory at `path`, empty unless files go in it.
  func add(directory path: String) {
    _ = directory(at: path.split(separator: "/"))
  }

  /// The node at `segments` from the root, made with its parents where missing.
  private func directory(at segments: [Substring]) -> Node {
    var node = root
    for segment in segments {
      let key = String(segment)
      if let child = node.children[key] {
        node = child
      } else {
        let child = Node()
        node.children[key] = child
        node = child
      }
    }
    return node
  }

  /// The root's digest and every directory's bytes, the root's first.
  func encoded() -> (root: ActionMessages.Digest, directories: [[UInt8]]) {
    var blobs: [[UInt8]] = [[]]
    let digest = encode(root, into: &blobs, at: 0)
    return (digest, blobs)
  }

  private func encode(_ node: Node, into blobs: inout [[UInt8]], at slot: Int) -> ActionMessages.Digest {
    var directory = ActionMessages.Directory()
    directory.files = node.files
    for (name, child) in node.children {
      blobs.append([])
      directory.directories.append((name, encode(child, into: &blobs, at: blobs.count - 1)))
    }
    blobs[slot] = directory.encoded
    return ActionMessages.Digest(of: blobs[slot])
  }
}
