import REAPI
import RunnerCache
import RunnerModel
import RunnerRemote
import Testing

/// The key's messages, written by hand in `RunnerCache`, must be the bytes swift-protobuf
/// writes for the same messages: otherwise the local and the remote cache would name one
/// action by two digests.
@Suite struct ActionMessagesTests {
  typealias V2 = Build_Bazel_Remote_Execution_V2_Digest

  func generated(_ digest: ActionMessages.Digest) -> V2 {
    var message = V2()
    message.hash = digest.hash
    message.sizeBytes = digest.size
    return message
  }

  @Test func aDigestIsWrittenAsSwiftProtobufWritesIt() throws {
    let blob = Array("hello\n".utf8)
    let digest = ActionMessages.Digest(of: blob)
    #expect(digest.hash == RunnerRemote.Digest(of: blob).hash)
    #expect(digest.encoded == (try generated(digest).serializedBytes() as [UInt8]))
    let empty = ActionMessages.Digest(of: [])
    #expect(empty.hash == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(empty.encoded == (try generated(empty).serializedBytes() as [UInt8]))
  }

  @Test func aCommandIsWrittenAsSwiftProtobufWritesIt() throws {
    var command = ActionMessages.Command(arguments: ["/bin/sh", "-e", "-c", "cc -o app main.c \"$@\"", "é"])
    command.environment = [("PATH", "/usr/bin:/bin"), ("MODE", "release"), ("EMPTY", "")]
    command.outputPaths = ["dist/app", "dist/app.map"]
    command.workingDirectory = "packages/core"
    command.platform = [("OSFamily", "linux"), ("ISA", "x86-64")]
    var message = Build_Bazel_Remote_Execution_V2_Command()
    message.arguments = command.arguments
    message.environmentVariables = [("EMPTY", ""), ("MODE", "release"), ("PATH", "/usr/bin:/bin")].map {
      var variable = Build_Bazel_Remote_Execution_V2_Command.EnvironmentVariable()
      variable.name = $0.0
      variable.value = $0.1
      return variable
    }
    message.outputPaths = ["dist/app", "dist/app.map"]
    message.workingDirectory = "packages/core"
    message.platform.properties = [("ISA", "x86-64"), ("OSFamily", "linux")].map {
      var property = Build_Bazel_Remote_Execution_V2_Platform.Property()
      property.name = $0.0
      property.value = $0.1
      return property
    }
    #expect(command.encoded == (try message.serializedBytes() as [UInt8]))
    #expect(
      ActionMessages.Command(arguments: ["true"]).encoded
        == (try Build_Bazel_Remote_Execution_V2_Command.with { $0.arguments = ["true"] }.serializedBytes() as [UInt8]))
  }

  @Test func aDirectoryAndAnActionAreWrittenAsSwiftProtobufWritesThem() throws {
    let source = ActionMessages.Digest(of: Array("int main(void) { return 0; }\n".utf8))
    let tool = ActionMessages.Digest(of: Array("#!/bin/sh\n".utf8))
    let inner = ActionMessages.Directory()
    var root = ActionMessages.Directory()
    root.files = [("main.c", source, false), ("build.sh", tool, true)]
    root.directories = [("include", ActionMessages.Digest(of: inner.encoded))]
    var message = Build_Bazel_Remote_Execution_V2_Directory()
    message.files = [("build.sh", tool, true), ("main.c", source, false)].map { file in
      var node = Build_Bazel_Remote_Execution_V2_FileNode()
      node.name = file.0
      node.digest = generated(file.1)
      node.isExecutable = file.2
      return node
    }
    var directory = Build_Bazel_Remote_Execution_V2_DirectoryNode()
    directory.name = "include"
    directory.digest = generated(ActionMessages.Digest(of: inner.encoded))
    message.directories = [directory]
    #expect(root.encoded == (try message.serializedBytes() as [UInt8]))
    #expect(inner.encoded == [])

    var action = ActionMessages.Action(
      command: ActionMessages.Digest(of: ActionMessages.Command(arguments: ["true"]).encoded),
      inputRoot: ActionMessages.Digest(of: root.encoded))
    action.timeout = .seconds(90) + .milliseconds(250)
    action.doNotCache = true
    var actionMessage = Build_Bazel_Remote_Execution_V2_Action()
    actionMessage.commandDigest = generated(action.command)
    actionMessage.inputRootDigest = generated(action.inputRoot)
    actionMessage.timeout.seconds = 90
    actionMessage.timeout.nanos = 250_000_000
    actionMessage.doNotCache = true
    #expect(action.encoded == (try actionMessage.serializedBytes() as [UInt8]))
    // An input root with nothing in it is still a set field: present, empty.
    let bare = ActionMessages.Action(command: action.command, inputRoot: ActionMessages.Digest(of: []))
    var bareMessage = Build_Bazel_Remote_Execution_V2_Action()
    bareMessage.commandDigest = generated(action.command)
    bareMessage.inputRootDigest = generated(ActionMessages.Digest(of: []))
    #expect(bare.encoded == (try bareMessage.serializedBytes() as [UInt8]))
  }

  /// A task's whole key — its Command, every Directory of its input tree, its Action with the
  /// salt — reads back with swift-protobuf and writes out byte for byte the same.
  @Test func aTasksKeyReadsBackWithSwiftProtobuf() throws {
    var task = TaskDefinition(name: "build", location: SourceLocation(file: "t", line: 1, column: 1), index: 0)
    task.action = .shell([Command(text: "cc -o out/app src/main.c", location: task.location)])
    task.directory = "app"
    task.sources = ["src/**", "../../shared/*.h"]
    task.outputs = ["out/app"]
    let sources = [
      FileRecord(path: "src/main.c", hash: String(repeating: "a", count: 64), size: 30),
      FileRecord(path: "src/lib/util.c", hash: String(repeating: "b", count: 64), size: 10, executable: true),
      FileRecord(path: "../../shared/api.h", hash: String(repeating: "c", count: 64), size: 5),
    ]
    let key = ActionKey(
      task: task, environment: [("CC", "clang"), ("PATH", "/usr/bin")], dependencies: "d", sources: sources)
    #expect(key.command.arguments == ["cc", "-o", "out/app", "src/main.c"])
    #expect(key.command.workingDirectory == "app")
    #expect(key.isSelfContained == false, "a source outside the task file's directory is in the salt only")
    let command = try Build_Bazel_Remote_Execution_V2_Command(serializedBytes: key.command.encoded)
    #expect(command.environmentVariables.map(\.name) == ["CC", "PATH"])
    #expect(try command.serializedBytes() as [UInt8] == key.command.encoded)
    #expect(key.directories.count == 4, "the root, app, app/src, app/src/lib")
    let root = try Build_Bazel_Remote_Execution_V2_Directory(serializedBytes: key.directories[0])
    #expect(root.directories.map(\.name) == ["app"])
    #expect(root.directories[0].digest.hash == ContentHasher.sha256Hex(key.directories[1]))
    for blob in key.directories {
      let message = try Build_Bazel_Remote_Execution_V2_Directory(serializedBytes: blob)
      #expect(try message.serializedBytes() as [UInt8] == blob)
    }
    let lib = try Build_Bazel_Remote_Execution_V2_Directory(serializedBytes: key.directories[3])
    #expect(lib.files.map(\.name) == ["util.c"] && lib.files[0].isExecutable && lib.files[0].digest.sizeBytes == 10)
    let action = try Build_Bazel_Remote_Execution_V2_Action(serializedBytes: key.action.encoded)
    #expect(!action.salt.isEmpty)
    #expect(action.inputRootDigest.hash == ContentHasher.sha256Hex(key.directories[0]))
    #expect(try action.serializedBytes() as [UInt8] == key.action.encoded)
    #expect(key.digest.hash == ContentHasher.sha256Hex(key.action.encoded))
  }
}
