import Foundation
import Testing

/// The live status area, seen through a real pseudo-terminal (`script` allocates one).
@Suite struct StatusAreaTests {
  @Test func statusLineIsRedrawnAndTaskLinesAreNeverTorn() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-tty-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let lines = 40
    try """
    tasks:
      a: sh -c 'i=0; while [ $i -lt \(lines) ]; do echo a-line-$i; i=$((i+1)); done'
      b: sh -c 'i=0; while [ $i -lt \(lines) ]; do echo b-line-$i; i=$((i+1)); done'
      c: {deps: [a, b], run: sleep 0.2}
    """.write(to: directory.appendingPathComponent("tasks.yml"), atomically: true, encoding: .utf8)
    let transcript = directory.appendingPathComponent("tty.out").path
    let script = Process()
    script.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    script.arguments = ["-qfec", "'\(BinaryRunner.executable.path)' -j2 c", transcript]
    script.currentDirectoryURL = directory
    script.environment = ["PATH": "/usr/bin:/bin", "TERM": "xterm", "NO_COLOR": "1"]
    script.standardOutput = FileHandle.nullDevice
    script.standardInput = FileHandle.nullDevice
    try script.run()
    script.waitUntilExit()
    #expect(script.terminationStatus == 0)
    let raw = try String(contentsOfFile: transcript, encoding: .utf8)
    #expect(raw.contains("running"))
    #expect(raw.contains("[3/3] 0 running"))
    // What a terminal shows of each physical line is what follows the last "clear line".
    let shown = raw.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map { piece -> String in
      let text = String(piece)
      guard let clear = text.range(of: "\r\u{1B}[K", options: .backwards) else { return text }
      return String(text[clear.upperBound...])
    }
    for task in ["a", "b"] {
      for index in 0..<lines {
        #expect(shown.contains("\(task) | \(task)-line-\(index)"), "line \(task)-line-\(index) torn or missing")
      }
    }
    #expect(shown.contains { $0.hasPrefix("3 task(s): 3 succeeded") })
  }
}
