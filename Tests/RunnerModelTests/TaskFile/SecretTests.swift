import RunnerBasics
import Testing

@testable import RunnerModel

@Suite struct SecretMaskTests {
  func masked(_ text: String, _ values: [String]) -> String { SecretMask(values: values).masking(text) }

  @Test func everyOccurrenceOfEveryValueIsReplaced() {
    #expect(masked("a hunter2 b hunter2", ["hunter2"]) == "a *** b ***")
    #expect(masked("tok-abc and xyz!", ["abc", "xyz"]) == "tok-*** and ***!")
    #expect(masked("nothing here", ["hunter2"]) == "nothing here")
  }

  /// A value that contains another is masked whole, not as `***` around the rest.
  @Test func theLongestValueWinsWhereTwoOverlap() {
    #expect(masked("key=abcdef", ["abc", "abcdef"]) == "key=***")
    #expect(masked("xxabcdefyy", ["cde", "abcdef"]) == "xx***yy")
  }

  @Test func multiLineValuesAreMaskedLineByLineAndShortLinesAreNot() {
    let mask = SecretMask(values: ["-----BEGIN KEY-----\r\nMIIEow\nab\n", "", "on"])
    #expect(mask.masking("-----BEGIN KEY-----\nMIIEow\nab") == "***\n***\nab")
    #expect(SecretMask(values: ["", "on", "\n"]).isEmpty)
  }

  @Test func bytesAreReturnedOnlyWhenSomethingWasMasked() {
    let mask = SecretMask(values: ["secret"])
    let plain = Array("all clear\n".utf8)
    #expect(plain.withUnsafeBytes { mask.masked($0) } == nil)
    let loud = Array("a secret\nsecret\n".utf8)
    #expect(loud.withUnsafeBytes { mask.masked($0) } == Array("a ***\n***\n".utf8))
    #expect(mask.reveals("my secret") && !mask.reveals("my secre"))
  }

  /// The file's secrets apply to every task; a task's own add to them; the mask holds each
  /// secret's value from the environment and from the `env` that sets it.
  @Test func namesAndValuesFromTheFileAndTheTasks() throws {
    let graph = try loadGraph(
      """
      secrets: [TOKEN]
      tasks:
        a: { run: "true" }
        b: { secrets: [KEY, TOKEN], env: { KEY: "literal-key" }, run: "true" }
      """)
    #expect(graph.secretNames(of: graph.index(of: "a")!) == ["TOKEN"])
    #expect(graph.secretNames(of: graph.index(of: "b")!) == ["TOKEN", "KEY"])
    let mask = graph.secretMask(environment: ["TOKEN": "from-env", "KEY": "unused-here", "OTHER": "visible"])
    #expect(mask.masking("from-env literal-key unused-here visible") == "*** *** *** visible")
  }

  @Test func aNameWithAnEqualsSignIsAnError() {
    let errors = loadErrors("tasks:\n  a: { secrets: [\"A=B\"], run: \"true\" }\n")
    #expect(errors.count == 1 && errors.first?.location?.line == 2, "\(errors)")
  }
}
