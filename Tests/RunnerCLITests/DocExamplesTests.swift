import Foundation
import Testing

/// Every YAML example in README.md and docs/ loads (`runner --list` exits 0), so the docs
/// cannot drift from the code; an example marked `<!-- run: ARGS -->` on the line before it
/// also runs (`runner ARGS` exits 0). `<!-- not a task file … -->` marks YAML that is
/// something else (a GitHub Actions step).
///
/// Examples are often fragments. A fragment of task keys (`deps: [lint, build]`) becomes a
/// task; a fragment of file keys (`params:`) gets a task; task definitions get `tasks:`; a
/// list of image steps becomes an image task; one line per form (`if: …` twice) is tested a
/// line at a time. A fragment may name tasks it does not define, params and outputs it does
/// not declare, and files it does not hold: those are supplied. A whole file (with `tasks:`)
/// gets nothing but the files it includes and the `.env` files it names.
@Suite struct DocExamplesTests {
  struct Example: CustomStringConvertible {
    var file: String
    var line: Int
    var text: String
    var run: String?
    var description: String { "\(file):\(line)" }
  }

  static let fileKeys: Set<String> = [
    "version", "concurrency", "fail_fast", "default", "env", "key_env", "secrets", "params", "includes", "dotenv",
    "shell", "remote", "tasks", "sources",
  ]
  static let taskKeys: Set<String> = [
    "desc", "deps", "run", "image", "env", "key_env", "secrets", "dir", "priority", "timeout", "retries", "sources",
    "outputs", "wait_for", "resources", "shell", "internal", "always", "service", "interactive", "params", "dotenv",
    "matrix", "if", "preconditions", "aliases", "prompt", "depfile",
  ]

  static let examples: [Example] = {
    let root = BinaryRunner.packageRoot
    let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
    let files = ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    var found: [Example] = []
    for file in files {
      guard let text = try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8) else { continue }
      let lines = text.components(separatedBy: "\n")
      var index = 0
      while index < lines.count {
        guard lines[index] == "```yaml" || lines[index] == "```yml" else {
          index += 1
          continue
        }
        let start = index
        let before = start > 0 ? lines[start - 1] : ""
        var body: [String] = []
        index += 1
        while index < lines.count, lines[index] != "```" {
          body.append(lines[index])
          index += 1
        }
        index += 1
        if before.hasPrefix("<!-- not a task file") { continue }
        var run: String?
        if before.hasPrefix("<!-- run: "), before.hasSuffix(" -->") {
          run = String(before.dropFirst("<!-- run: ".count).dropLast(" -->".count))
        }
        found.append(Example(file: file, line: start + 1, text: body.joined(separator: "\n") + "\n", run: run))
      }
    }
    return found
  }()

  @Test func theDocsHaveExamples() {
    #expect(Self.examples.count > 40, "\(Self.examples.count)")
  }

  @Test(arguments: examples) func anExampleLoads(_ example: Example) throws {
    for (text, isFragment) in Self.forms(example.text) {
      let project = try TaskFileProject(text)
      defer { project.remove() }
      try Self.supplyFiles(named: text, in: project)
      var file = text
      var stubs: [String: Set<String>] = [:]
      var output = try project.run("--list")
      // A fragment's undefined tasks become stubs, with the params its `with:` gives them.
      while output.status != 0, isFragment {
        var changed = false
        for name in Self.captures(#"depends on '([^']+)', which is not defined"#, in: output.stderr)
        where stubs[name[0]] == nil {
          stubs[name[0]] = []
          changed = true
        }
        for pair in Self.captures(#"task '([^']+)' has no param '([^']+)'"#, in: output.stderr)
        where stubs[pair[0]] != nil && stubs[pair[0]]?.contains(pair[1]) == false {
          stubs[pair[0]]?.insert(pair[1])
          changed = true
        }
        guard changed else { break }
        file = text.trimmingCharacters(in: .newlines) + "\n"
        for (name, params) in stubs.sorted(by: { $0.key < $1.key }) {
          file +=
            params.isEmpty
            ? "  \(name): echo\n"
            : "  \(name): { params: { \(params.sorted().map { "\($0): \"\"" }.joined(separator: ", ")) }, run: echo }\n"
        }
        try project.write("tasks.yml", file)
        output = try project.run("--list")
      }
      #expect(output.status == 0, "\(example): \(output.stderr)\n\(file)")
      if let run = example.run {
        let ran = try project.run(run.split(separator: " ").map(String.init))
        #expect(ran.status == 0, "\(example): runner \(run): \(ran.stdout)\(ran.stderr)")
      }
    }
  }

  /// The task files an example stands for, each with whether it is a fragment.
  static func forms(_ block: String) -> [(String, Bool)] {
    let entries = topLevelEntries(block)
    guard let first = entries.first else { return [] }
    if first.hasPrefix("- ") {
      return [("tasks:\n  example:\n    image:\n      - load: in.png\n" + indent(block, 6), true)]
    }
    let keys = entries.map(key)
    if Set(keys).count < keys.count { return entries.flatMap { forms($0 + "\n") } }
    if keys.contains("tasks") { return [(block, false)] }
    if Set(keys).isSubset(of: fileKeys) { return [(block + "tasks:\n  example: echo\n", true)] }
    let params = captures(#"params\.([A-Za-z_][A-Za-z0-9_]*)"#, in: block).map { $0[0] }
    let declared =
      params.isEmpty ? "" : "params: { " + Set(params).sorted().map { "\($0): \"\"" }.joined(separator: ", ") + " }\n"
    if Set(keys).isSubset(of: taskKeys) {
      let read = Set(captures(#"deps\.([A-Za-z0-9_:-]+)\.outputs"#, in: block).map { $0[0] }).sorted()
      let deps = read.isEmpty || keys.contains("deps") ? "" : "    deps: [\(read.joined(separator: ", "))]\n"
      return [(declared + "tasks:\n  example:\n" + deps + indent(block, 4), true)]
    }
    return [(declared + "tasks:\n" + indent(block, 2), true)]
  }

  /// Each top-level entry with the lines that belong to it.
  static func topLevelEntries(_ block: String) -> [String] {
    var entries: [[String]] = []
    for line in block.components(separatedBy: "\n") {
      if let character = line.first, !character.isWhitespace, character != "#" {
        entries.append([line])
      } else if !entries.isEmpty {
        entries[entries.count - 1].append(line)
      }
    }
    return entries.map { $0.joined(separator: "\n") }
  }

  static func key(_ entry: String) -> String {
    String(entry.prefix { $0 != ":" }).trimmingCharacters(in: CharacterSet(charactersIn: "'\" "))
  }

  static func indent(_ text: String, _ width: Int) -> String {
    let pad = String(repeating: " ", count: width)
    return text.trimmingCharacters(in: .newlines).components(separatedBy: "\n").map { pad + $0 }.joined(separator: "\n")
      + "\n"
  }

  /// Included files (`…/tasks.yml`, `*` as `a`) and `.env` files the example names.
  static func supplyFiles(named text: String, in project: TaskFileProject) throws {
    for match in captures(#"([A-Za-z0-9_./*-]+\.ya?ml)"#, in: text) where match[0] != "tasks.yml" {
      let path = match[0].replacingOccurrences(of: "*", with: "a")
      guard project.read(path) == nil else { continue }
      // The params an include's `with: { NAME: … }` on the path's line gives values to.
      let line = text.components(separatedBy: "\n").first { $0.contains(match[0]) } ?? ""
      let given = line.range(of: "with: {").map { captures(#"(\w+):"#, in: String(line[$0.upperBound...])) } ?? []
      let params = given.isEmpty ? "" : "params:\n" + given.map { "  \($0[0]): { default: \"\" }\n" }.joined()
      try project.write(path, params + "tasks:\n  build: echo\n  test: echo\n")
    }
    for match in captures(#"(?:^|[\s\[,])([A-Za-z0-9_/-]*\.env[A-Za-z0-9_.-]*)"#, in: text) {
      if project.read(match[0]) == nil { try project.write(match[0], "") }
    }
  }

  /// Each match's capture groups.
  static func captures(_ pattern: String, in text: String) -> [[String]] {
    guard let expression = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else { return [] }
    let range = NSRange(text.startIndex..., in: text)
    return expression.matches(in: text, range: range).map { match in
      (1..<match.numberOfRanges).map { group in
        Range(match.range(at: group), in: text).map { String(text[$0]) } ?? ""
      }
    }
  }
}
