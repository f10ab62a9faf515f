/// The REAPI v2 messages a task's key is made of (`build.bazel.remote.execution.v2`: Digest,
/// Command, Platform, Directory, Action), written as protocol buffers by hand: fields in
/// ascending number, defaults left out, as swift-protobuf and Bazel write them. So the local
/// cache and a remote one name an action by the same digest, and the core needs no protobuf
/// library (`RunnerRemoteTests` checks these bytes against swift-protobuf's).
package enum ActionMessages {
  /// A blob's name: its SHA-256 in lowercase hex and its size.
  package typealias Digest = ContentDigest

  /// What runs: the argv, the environment (by name), the output paths (sorted), the working
  /// directory and the platform's properties (by name), as REAPI requires them ordered.
  package struct Command: Sendable {
    package var arguments: [String]
    package var environment: [(name: String, value: String)] = []
    package var outputPaths: [String] = []
    package var workingDirectory = ""
    package var platform: [(name: String, value: String)] = []

    package init(arguments: [String]) { self.arguments = arguments }

    package var encoded: [UInt8] {
      var out = ProtobufWriter()
      for argument in arguments { out.string(1, argument) }
      for variable in environment.sorted(by: { $0.name < $1.name }) {
        out.message(2, Self.pair(variable.name, variable.value))
      }
      if !platform.isEmpty {
        var properties = ProtobufWriter()
        for property in platform.sorted(by: { ($0.name, $0.value) < ($1.name, $1.value) }) {
          properties.message(1, Self.pair(property.name, property.value))
        }
        out.message(5, properties.bytes)
      }
      out.string(6, workingDirectory)
      for path in outputPaths.sorted() { out.string(7, path) }
      return out.bytes
    }

    static func pair(_ name: String, _ value: String) -> [UInt8] {
      var out = ProtobufWriter()
      out.string(1, name)
      out.string(2, value)
      return out.bytes
    }
  }

  /// One level of an input tree: files and subdirectories by name (sorted, as REAPI requires).
  package struct Directory: Sendable {
    package var files: [(name: String, digest: Digest, isExecutable: Bool)] = []
    package var directories: [(name: String, digest: Digest)] = []

    package init() {}

    package var encoded: [UInt8] {
      var out = ProtobufWriter()
      for file in files.sorted(by: { $0.name < $1.name }) {
        var node = ProtobufWriter()
        node.string(1, file.name)
        node.message(2, file.digest.encoded)
        node.bool(4, file.isExecutable)
        out.message(1, node.bytes)
      }
      for directory in directories.sorted(by: { $0.name < $1.name }) {
        var node = ProtobufWriter()
        node.string(1, directory.name)
        node.message(2, directory.digest.encoded)
        out.message(2, node.bytes)
      }
      return out.bytes
    }
  }

  /// A Command over an input tree: its digest is the task's key.
  package struct Action: Sendable {
    package var command: Digest
    package var inputRoot: Digest
    /// nil: no limit.
    package var timeout: Duration?
    package var doNotCache = false
    /// Bytes that put the action in a cache namespace of its own (REAPI 2.2's `salt`).
    package var salt: [UInt8] = []

    package init(command: Digest, inputRoot: Digest) {
      self.command = command
      self.inputRoot = inputRoot
    }

    package var encoded: [UInt8] {
      var out = ProtobufWriter()
      out.message(1, command.encoded)
      out.message(2, inputRoot.encoded)
      if let timeout {
        var duration = ProtobufWriter()
        let (seconds, attoseconds) = timeout.components
        duration.varint(1, UInt64(bitPattern: seconds))
        duration.varint(2, UInt64(bitPattern: Int64(attoseconds / 1_000_000_000)))
        out.message(6, duration.bytes)
      }
      out.bool(7, doNotCache)
      out.bytes(9, salt)
      return out.bytes
    }
  }
}

/// Protocol-buffer wire format, the little of it these messages need.
struct ProtobufWriter {
  var bytes: [UInt8] = []

  mutating func tag(_ field: Int, _ wireType: UInt64) {
    raw(UInt64(field) << 3 | wireType)
  }

  mutating func raw(_ value: UInt64) {
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(value & 0x7F) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  /// A varint field; zero (the default) is left out.
  mutating func varint(_ field: Int, _ value: UInt64) {
    guard value != 0 else { return }
    tag(field, 0)
    raw(value)
  }

  mutating func bool(_ field: Int, _ value: Bool) { varint(field, value ? 1 : 0) }

  /// A string field; empty (the default) is left out.
  mutating func string(_ field: Int, _ value: String) {
    guard !value.isEmpty else { return }
    tag(field, 2)
    raw(UInt64(value.utf8.count))
    bytes.append(contentsOf: value.utf8)
  }

  /// A bytes field; empty (the default) is left out.
  mutating func bytes(_ field: Int, _ value: [UInt8]) {
    guard !value.isEmpty else { return }
    message(field, value)
  }

  /// An embedded message, written even when empty (a set message field is present).
  mutating func message(_ field: Int, _ value: [UInt8]) {
    tag(field, 2)
    raw(UInt64(value.count))
    bytes.append(contentsOf: value)
  }
}
