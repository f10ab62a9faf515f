import Glibc
import RunnerBasics
import RunnerModel

/// `runner --init`: a small commented `tasks.yml` in the current directory that `--list`
/// loads. Never overwrites: the file is written beside under a temporary name and linked into
/// place, which fails if `tasks.yml` appeared meanwhile.
package enum StarterFile {
  /// The JSON Schema's installed place: `../share/runner/` beside the binary's directory (the
  /// tarball, the .deb and the wheel all lay it out so); a debug build also finds the checkout
  /// it was built from (a release binary carries no path of the machine that built it).
  package static func schemaPath(executable: String = FilePath.canonical("/proc/self/exe")) -> String? {
    let bin = TaskFileLocator.parent(of: executable)
    var candidates = [TaskFileLocator.parent(of: bin) + "/share/runner/tasks.schema.json"]
    #if DEBUG
      // Sources/RunnerKit/StarterFile.swift → the checkout's schema/.
      candidates.append(
        TaskFileLocator.parent(of: TaskFileLocator.parent(of: TaskFileLocator.parent(of: #filePath)))
          + "/schema/tasks.schema.json")
    #endif
    return candidates.first { access($0, R_OK) == 0 }
  }

  static func text(schema: String?) -> String {
    let header = schema.map { "# yaml-language-server: $schema=\($0)\n" } ?? ""
    return header + """
      # runner's task file: `runner` runs the default tasks, `runner NAME` a task, `runner --list`
      # lists them, `runner --describe NAME` shows one. The format: docs/tasks-file.md in
      # runner's sources.
      version: 1
      default: [test]

      tasks:
        build:
          desc: Build the project
          run: echo "building in $PWD"
          # Up to date (skipped) while these files are unchanged and the outputs exist:
          # sources: ['src/**']
          # outputs: [build/app]

        test:
          desc: Run the tests after the build
          deps: [build]
          run: echo "testing"

        clean:
          desc: Remove what the build wrote
          run: echo "rm -rf build"

      """
  }

  /// Writes `tasks.yml` here. Exit 0, or 2 (with the error) when a task file exists or it
  /// cannot write.
  package static func create() -> Answer {
    for name in TaskFileLocator.names where access(name, F_OK) == 0 {
      return Answer(error: "'\(name)' already exists here; --init never overwrites a task file")
    }
    let bytes = Array(text(schema: schemaPath()).utf8)
    var template = Array(".tasks.yml.init-XXXXXX".utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard descriptor >= 0 else { return Answer(error: "cannot write here: \(FileReader.describe(errno))") }
    let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    defer { unlink(temporary) }
    let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    let mask = umask(0)
    umask(mask)
    fchmod(descriptor, 0o666 & ~mask)
    let closed = close(descriptor)
    guard written == bytes.count, closed == 0 else {
      return Answer(error: "cannot write here: \(FileReader.describe(errno))")
    }
    guard link(temporary, "tasks.yml") == 0 else {
      if errno == EEXIST {
        return Answer(error: "'tasks.yml' already exists here; --init never overwrites a task file")
      }
      return Answer(error: "cannot write tasks.yml here: \(FileReader.describe(errno))")
    }
    var answer = Answer()
    answer.say("wrote tasks.yml: `runner --list` shows its tasks, `runner` runs the default\n")
    return answer
  }
}
