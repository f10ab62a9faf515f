import RunnerModel
import Testing

@testable import RunnerLanguageServer

/// What the outline knows a task writes to `$RUNNER_OUTPUT`, read from its commands' text.
struct OutlineTests {
  @Test func keysWrittenByEchoAndPrintfAreFound() {
    let script = """
      echo "tag=$(git describe)" >> "$RUNNER_OUTPUT"
      printf 'sha=%s\\n' "$SHA" >> $RUNNER_OUTPUT; echo -n count=3 >> "$RUNNER_OUTPUT"
      { echo "notes<<EOF"; git log -1; echo EOF; } >> "$RUNNER_OUTPUT"
      echo "$NAME=x" >> "$RUNNER_OUTPUT"
      echo done
      """
    #expect(Outline.writtenKeys(script) == ["tag", "sha", "count", "notes"])
  }

  @Test func aCommandThatDoesNotNameTheFileWritesNoKey() {
    #expect(
      Outline.outputKeys(of: .shell([.init(text: "echo a=b", location: .init(file: "t", line: 1, column: 1))])).isEmpty)
    #expect(Outline.outputKeys(of: .group).isEmpty)
  }
}
