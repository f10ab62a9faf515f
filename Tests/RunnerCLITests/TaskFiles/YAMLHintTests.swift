import Foundation
import Testing

/// libyaml's words for the usual mistakes come with the fix.
@Suite struct YAMLHintTests {
  @Test(arguments: [
    (
      "tasks:\n  a:\n    run: echo status: done\n",
      "tasks.yml:3:21: error: invalid YAML: mapping values are not allowed in this context "
        + "(a value that holds ': ' must be quoted: run: 'echo status: done')"
    ),
    (
      "tasks:\n  a: echo\n  b:\n    deps: [a, :tset]\n    run: echo\n",
      "tasks.yml:4:15: error: invalid YAML: did not find expected node content while parsing a flow node "
        + "(a name that starts with ':' must be quoted inside [ ]: ':tset')"
    ),
    (
      "tasks:\n  a:\n    run: echo\n   deps: [b]\n",
      "(this line lines up with no key above it: check its indentation)"
    ),
    (
      "tasks:\n  a:\n    run: echo\n      deps: [b]\n",
      "tasks.yml:4:11: error: invalid YAML: mapping values are not allowed in this context "
        + "(this line is indented deeper than the key above it: line it up with its siblings)"
    ),
  ])
  func aYAMLMistakeSaysHowToFixIt(file: String, message: String) throws {
    let project = try TaskFileProject(file)
    defer { project.remove() }
    let output = try project.run("--list")
    #expect(output.status == 2)
    #expect(output.stderr.contains(message), "\(output.stderr)")
  }
}
