import Foundation
import Testing

/// `sources: auto` against a model, through the built binary: a random graph of tasks, each
/// reading some project files, part of its dependencies' outputs, a header found in the first
/// of two include directories and maybe a directory's listing, edited step by step at random
/// (a file rewritten, a header made in the include directory searched first, an entry added to
/// a listed directory, a file rewritten with the same bytes). After each step every output
/// must be what the model computes, and the tasks that ran must be exactly those whose inputs
/// as read changed: no stale output, no needless run.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "needs Linux"))
struct SourcesAutoDifferentialTests {
  /// A seeded generator (SplitMix64): the same graph and edits on every run.
  struct Generator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  struct ModelTask {
    var deps: [Int]
    /// The pool files it reads whole, and one it reads the first line of.
    var files: [Int]
    var firstLineOf: Int?
    /// The dependencies whose output it reads (the others it only waits for).
    var reads: [Int]
    var header: Bool
    var lists: Bool
  }

  let poolCount = 6

  func tasks(_ random: inout Generator) -> [ModelTask] {
    (0..<10).map { index in
      let deps =
        index == 0
        ? []
        : Array(Set((0..<Int.random(in: 0...2, using: &random)).map { _ in Int.random(in: 0..<index, using: &random) }))
          .sorted()
      return ModelTask(
        deps: deps,
        files: Array(
          Set((0..<Int.random(in: 1...2, using: &random)).map { _ in Int.random(in: 0..<poolCount, using: &random) })
        ).sorted(),
        firstLineOf: Bool.random(using: &random) ? Int.random(in: 0..<poolCount, using: &random) : nil,
        reads: deps.filter { _ in Int.random(in: 0..<4, using: &random) > 0 },
        header: Int.random(in: 0..<3, using: &random) == 0, lists: Int.random(in: 0..<4, using: &random) == 0)
    }
  }

  func taskFile(_ tasks: [ModelTask]) -> String {
    var yaml = "sources: auto\ntasks:\n"
    for (index, task) in tasks.enumerated() {
      var parts = task.files.map { "cat src/f\($0).txt" }
      if let line = task.firstLineOf { parts.append("head -n 1 src/f\(line).txt") }
      parts += task.reads.map { "cat out/t\($0).txt" }
      if task.header {
        parts.append("for d in inc/a inc/b; do if [ -f $d/h.txt ]; then cat $d/h.txt; break; fi; done")
      }
      if task.lists { parts.append("ls src/dir") }
      yaml += "  t\(index):\n"
      if !task.deps.isEmpty { yaml += "    deps: [\(task.deps.map { "t\($0)" }.joined(separator: ", "))]\n" }
      yaml += "    run: |\n      { \(parts.joined(separator: "; ")); } > out/t\(index).txt\n"
      yaml += "    outputs: [out/t\(index).txt]\n"
    }
    yaml += "  all:\n    deps: [\(tasks.indices.map { "t\($0)" }.joined(separator: ", "))]\n"
    return yaml
  }

  /// What the model says each task reads now (the path and what it found there) and writes.
  func model(_ tasks: [ModelTask], files: [String: String]) -> (inputs: [[String]], outputs: [String]) {
    var outputs: [String] = []
    var inputs: [[String]] = []
    for task in tasks {
      var text = ""
      var seen: [String] = []
      for file in task.files {
        text += files["src/f\(file).txt"]!
        seen.append("src/f\(file).txt=" + files["src/f\(file).txt"]!)
      }
      if let line = task.firstLineOf {
        let content = files["src/f\(line).txt"]!
        text += content.split(separator: "\n", omittingEmptySubsequences: false).first.map { $0 + "\n" } ?? ""
        seen.append("src/f\(line).txt=" + content)
      }
      for dependency in task.reads {
        text += outputs[dependency]
        seen.append("out/t\(dependency)=" + outputs[dependency])
      }
      if task.header {
        let path = files["inc/a/h.txt"] != nil ? "inc/a/h.txt" : "inc/b/h.txt"
        text += files[path]!
        seen.append("\(path)=" + files[path]!)
      }
      if task.lists {
        let names = files.keys.filter { $0.hasPrefix("src/dir/") }.map { String($0.dropFirst(8)) }.sorted()
        text += names.map { $0 + "\n" }.joined()
        seen.append("src/dir/=" + names.joined(separator: ","))
      }
      outputs.append(text)
      inputs.append(seen)
    }
    return (inputs, outputs)
  }

  @Test(arguments: [UInt64(1), 2, 3])
  func runsExactlyTheTasksWhoseReadInputsChanged(seed: UInt64) throws {
    var random = Generator(state: seed)
    let tasks = tasks(&random)
    let project = try TaskFileProject(taskFile(tasks))
    defer { project.remove() }
    var files: [String: String] = ["inc/b/h.txt": "header b\n", "src/dir/x.txt": "x\n"]
    for index in 0..<poolCount { files["src/f\(index).txt"] = "f\(index)\nsecond\n" }
    // Every write gets its own modification time, in the past, a second apart: no rewrite
    // hides within the file system's clock.
    var clock = Date(timeIntervalSinceNow: -10_000)
    func write(_ name: String, _ text: String) throws {
      try project.write(name, text)
      clock += 1
      try FileManager.default.setAttributes(
        [.modificationDate: clock], ofItemAtPath: project.directory.appendingPathComponent(name).path)
    }
    for (name, text) in files { try write(name, text) }
    try write("out/.keep", "")
    var last = model(tasks, files: files)
    let first = try project.run("-j2", "all")
    #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
    var ranCount = 0
    var keptCount = 0
    for step in 0..<24 {
      var edit: String
      var rewritten: String?
      switch Int.random(in: 0..<7, using: &random) {
      case 0, 1:
        let name = "src/f\(Int.random(in: 0..<poolCount, using: &random)).txt"
        files[name] = files[name]! + "edit \(step)\n"
        edit = "appended to \(name)"
      case 2:
        let name = "src/f\(Int.random(in: 0..<poolCount, using: &random)).txt"
        rewritten = name
        edit = "rewrote \(name) with the same bytes"
      case 3:
        if files["inc/a/h.txt"] == nil {
          files["inc/a/h.txt"] = "header a \(step)\n"
          edit = "made inc/a/h.txt"
        } else {
          files["inc/a/h.txt"] = nil
          try FileManager.default.removeItem(at: project.directory.appendingPathComponent("inc/a/h.txt"))
          edit = "removed inc/a/h.txt"
        }
      case 4:
        files["inc/b/h.txt"] = "header b \(step)\n"
        edit = "rewrote inc/b/h.txt"
      case 5:
        files["src/dir/n\(step).txt"] = "n\n"
        edit = "added src/dir/n\(step).txt"
      default:
        files["src/dir/x.txt"] = "x \(step)\n"
        edit = "rewrote src/dir/x.txt (a listing sees names only)"
      }
      for (name, text) in files where name == rewritten || project.read(name) != text { try write(name, text) }
      let now = model(tasks, files: files)
      let expected = Set(tasks.indices.filter { now.inputs[$0] != last.inputs[$0] }.map { "t\($0)" })
      let output = try project.run("-j2", "all")
      #expect(output.status == 0, "step \(step) (\(edit)): \(output.stdout)\(output.stderr)")
      let ran = Set(
        output.stdout.split(separator: "\n").compactMap { line -> String? in
          guard line.hasPrefix("✓ t"), !line.hasSuffix(" up to date") else { return nil }
          return line.dropFirst(2).split(separator: " ").first.map(String.init)
        })
      #expect(
        ran == expected, "seed \(seed) step \(step) (\(edit)): ran \(ran.sorted()), expected \(expected.sorted())")
      for index in tasks.indices where project.read("out/t\(index).txt") != now.outputs[index] {
        Issue.record("seed \(seed) step \(step) (\(edit)): out/t\(index).txt is stale")
      }
      ranCount += ran.count
      keptCount += tasks.count - ran.count
      last = now
    }
    #expect(ranCount > 10 && keptCount > 10, "the edits ran \(ranCount) tasks and kept \(keptCount)")
  }
}
