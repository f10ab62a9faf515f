import Foundation
import Testing

/// Restoring from the local cache into a folder many tasks share.
@Suite struct RestoreTests {
  @Test func restoresIntoASharedFolderRemoveAKilledRunnersTemporariesOnce() throws {
    var tasks = "tasks:\n"
    for index in 0..<20 {
      tasks +=
        "  t\(index): { sources: [src/\(index).c], outputs: [out/\(index).o], run: cp src/\(index).c out/\(index).o }\n"
    }
    tasks += "  all: { deps: [\((0..<20).map { "t\($0)" }.joined(separator: ", "))] }\n"
    let project = try TaskFileProject(tasks)
    defer { project.remove() }
    for index in 0..<20 { try project.write("src/\(index).c", "\(index)\n") }
    try project.write("out/.keep", "")
    #expect(try project.run("all").status == 0)
    // What a runner killed mid-restore leaves: a hidden, marked temporary of a dead writer.
    let orphan = "out/.3.o.runner-tmp-2147483646-7"
    try project.write(orphan, "half")
    _ = try project.shell("touch -d '2 hours ago' \(orphan) && rm out/*.o")
    let restored = try project.run("all")
    #expect(restored.status == 0)
    #expect(restored.stdout.components(separatedBy: "restored from cache").count == 21, "\(restored.stdout)")
    #expect(project.read(orphan) == nil)
    for index in 0..<20 { #expect(project.read("out/\(index).o") == "\(index)\n") }
  }
}
