import Foundation
import Testing

/// Small files that used to cost unbounded stack, memory or time: each is now a clear error
/// at its place (exit 2), or an import that says what it left out, within a bound that
/// docs/tasks-file.md and docs/import.md state.
@Suite struct InputBoundTests {
  static let deadline = Duration.seconds(120)

  func run(_ project: TaskFileProject, _ arguments: [String]) throws -> BinaryRunner.Output {
    try BinaryRunner.run(arguments, in: project.directory, deadline: Self.deadline)
  }

  @Test(arguments: [
    ("parentheses", String(repeating: "(", count: 30_000) + "'a'" + String(repeating: ")", count: 30_000)),
    ("negations", String(repeating: "!", count: 100_000) + "'a'"),
  ])
  func aDeeplyNestedConditionIsAnError(kind: String, expression: String) throws {
    let project = try TaskFileProject("tasks:\n  a:\n    if: ${{ \(expression) }}\n    run: echo ran\n")
    defer { project.remove() }
    for arguments in [["a"], ["--list"], ["-n", "a"]] {
      let output = try run(project, arguments)
      #expect(output.status == 2, "\(kind) \(arguments): \(output.stderr.prefix(300))")
      #expect(output.stderr.contains("tasks.yml:3:"), "\(output.stderr.prefix(300))")
      #expect(output.stderr.contains("nest more than 64 deep"), "\(output.stderr.prefix(300))")
    }
  }

  @Test func aConditionOfTooManyValuesIsAnError() throws {
    let expression = (0..<600).map { "'\($0)' == 'x'" }.joined(separator: " || ")
    let project = try TaskFileProject("tasks:\n  a:\n    if: ${{ \(expression) }}\n    run: echo ran\n")
    defer { project.remove() }
    let output = try run(project, ["a"])
    #expect(output.status == 2)
    #expect(output.stderr.contains("more than 500 values in one condition"), "\(output.stderr.prefix(300))")
  }

  @Test func aMatrixOfTooManyCombinationsIsAnErrorAtOnce() throws {
    let axes = (0..<40).map { "      a\($0): [x, y]" }.joined(separator: "\n")
    let project = try TaskFileProject("tasks:\n  t:\n    matrix:\n\(axes)\n    run: echo ran\n")
    defer { project.remove() }
    for arguments in [["--list"], ["t"]] {
      let output = try run(project, arguments)
      #expect(output.status == 2, "\(output.stderr.prefix(300))")
      #expect(output.stderr.contains("tasks.yml:4:7: error"), "\(output.stderr.prefix(300))")
      #expect(output.stderr.contains("makes more than 1024 combinations"), "\(output.stderr.prefix(300))")
    }
    let fits = try TaskFileProject(
      "tasks:\n  t:\n    matrix:\n\((0..<10).map { "      a\($0): [x, y]" }.joined(separator: "\n"))\n    run: 'true'\n"
    )
    defer { fits.remove() }
    #expect(try run(fits, ["--list"]).status == 0, "1024 combinations are allowed")
  }

  @Test func aDeeplyNestedJustExpressionIsAnImportError() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    let depth = 100_000
    try project.write(
      "justfile",
      "x := " + String(repeating: "(", count: depth) + "'a'" + String(repeating: ")", count: depth)
        + "\n\nb:\n  echo {{x}}\n")
    let output = try run(project, ["import", "justfile", "-o", "-"])
    // The assignment is left out, and said; the recipe is imported.
    #expect(output.status == 3, "\(output.stderr.prefix(300))")
    #expect(output.stderr.contains("nested more than 256 deep"), "\(output.stderr.prefix(300))")
  }

  @Test func anExponentialMakefileVariableIsCutShortAndSaid() throws {
    let project = try TaskFileProject()
    defer { project.remove() }
    var makefile = "X0 = ab\n"
    for level in 0..<40 { makefile += "X\(level + 1) = $(X\(level))$(X\(level))$(X\(level))$(X\(level))\n" }
    makefile += "all:\n\techo $(X40)\n"
    try project.write("Makefile", makefile)
    let output = try run(project, ["import", "Makefile", "-o", "tasks.yml"])
    #expect(output.status == 3, "\(output.stderr.prefix(600))")
    #expect(output.stderr.contains("expands to more than"), "\(output.stderr.prefix(600))")
    #expect((project.read("tasks.yml")?.utf8.count ?? .max) < 4 << 20)
  }
}
