import Testing

@testable import RunnerImport
@testable import RunnerModel

/// What the writer quotes reads back, through runner's own loader, as the same string.
@Suite struct TasksFileWriterTests {
  @Test(arguments: [
    "plain words", "yes", "3.11", "a: b", "x #y", "[list]", "{a, b}", "$$HOME", "'quoted'", "tab\there",
    "escape \u{1b}[1m and del \u{7f}", "two\nlines", "ends with a newline\n", " leading space", "ünïcode ✓",
  ])
  func stringsRoundTrip(value: String) throws {
    var file = ImportedFile()
    var task = ImportedTask(name: "t")
    task.environment = [("V", value)]
    task.commands = [.shell("echo one"), .shell(value)]
    file.tasks = [task]
    let text = TasksFileWriter().write(file)
    let graph = try TaskFileLoader().load(bytes: Array(text.utf8), path: "tasks.yml")
    let loaded = try #require(graph.tasks.first { $0.name == "t" })
    let written = loaded.environment.first { $0.name == "V" }?.value
    #expect(written?.render { _, _ in nil } == value, "\(text)")
  }
}
