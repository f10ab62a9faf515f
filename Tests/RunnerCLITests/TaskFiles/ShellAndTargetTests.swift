import Foundation
import Testing

/// Shells, the first argument, target patterns and keys from other tools' formats.
@Suite struct ShellAndTargetTests {
  @Test func aFailingLineOfAMultiLineScriptFailsTheTask() throws {
    let project = try TaskFileProject("tasks:\n  a:\n    run: |\n      false\n      echo not reached\n")
    defer { project.remove() }
    let output = try project.run("a")
    #expect(output.status == 1)
    #expect(!output.stdout.contains("not reached"))
  }

  @Test func bashRunsWithPipefailAndBashSyntax() throws {
    let project = try TaskFileProject(
      """
      shell: bash
      tasks:
        pipe: 'false | true; echo not reached'
        test: '[[ x == x ]] && echo "bash $BASH_VERSINFO"'
        plain: {shell: sh, run: 'false | true; echo sh has no pipefail'}
        argv: {shell: [bash, -c], run: 'false; echo no errexit with a bare argv'}
      """)
    defer { project.remove() }
    let pipe = try project.run("pipe")
    #expect(pipe.status == 1)
    #expect(!pipe.stdout.contains("pipe | not reached"))
    let test = try project.run("test", "plain", "argv")
    #expect(test.status == 0, "\(test.stderr)")
    #expect(test.stdout.contains("test  | bash "))
    #expect(test.stdout.contains("plain | sh has no pipefail"))
    #expect(test.stdout.contains("argv  | no errexit with a bare argv"))
  }

  @Test func anUnknownShellNameIsAnErrorAtItsLine() throws {
    let project = try TaskFileProject("tasks:\n  a: {shell: fish, run: echo}\n")
    defer { project.remove() }
    let output = try project.run("a")
    #expect(output.status == 2)
    #expect(output.stderr.contains("tasks.yml:2:14: error: 'shell' of task 'a' names 'fish'"))
  }

  @Test func aFileNamedLikeATaskIsATargetNotTheTaskFile() throws {
    let project = try TaskFileProject("tasks:\n  goreleaser: echo the task ran\n")
    defer { project.remove() }
    try project.write("goreleaser", "#!/bin/sh\n")
    let output = try project.run("goreleaser")
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout.contains("goreleaser | the task ran"))
    try project.write("sub/other.tasks", "tasks:\n  x: echo from the other file\n")
    let other = try project.run("sub/other.tasks", "x")
    #expect(other.stdout.contains("x | from the other file"), "\(other.stderr)")
  }

  @Test func patternsMatchWithinASegmentOrAcross() throws {
    let project = try TaskFileProject(
      """
      tasks:
        api:test: echo api
        core:test: echo core
        a:b:test: echo deep
        lint: echo lint
        hidden:test: {internal: true, run: echo hidden}
      """)
    defer { project.remove() }
    let one = try project.run("-n", "*:test")
    #expect(one.status == 0, "\(one.stderr)")
    #expect(one.stdout.contains("targets: api:test, core:test\n"))
    let all = try project.run("-n", "**")
    #expect(all.stdout.contains("targets: api:test, core:test, a:b:test, lint\n"))
    let deep = try project.run("-n", "**:test")
    #expect(deep.stdout.contains("targets: api:test, core:test, a:b:test\n"))
    let none = try project.run("*:build")
    #expect(none.status == 2)
    #expect(none.stderr.contains("target pattern '*:build' matches no task"))
  }

  @Test func keysFromOtherToolsNameRunnersEquivalent() throws {
    let project = try TaskFileProject(
      """
      vars: {A: b}
      tasks:
        a:
          cmds: [echo]
          requires: {vars: [X]}
          generates: [out]
          platforms: [linux]
      """)
    defer { project.remove() }
    let output = try project.run("a")
    #expect(output.status == 2)
    for expected in [
      "tasks.yml:1:1: error: unknown key 'vars' in the task file: runner's equivalent is 'params'",
      "tasks.yml:4:5: error: unknown key 'cmds' in task 'a': runner's equivalent is 'run'",
      "tasks.yml:5:5: error: unknown key 'requires' in task 'a': runner's equivalent is 'params' with 'required: true'",
      "tasks.yml:6:5: error: unknown key 'generates' in task 'a': runner's equivalent is 'outputs'",
      "tasks.yml:7:5: error: unknown key 'platforms' in task 'a': runner's equivalent is 'if: ${{ runner.os == 'linux' }}'",
    ] {
      #expect(output.stderr.contains(expected), "\(output.stderr)")
    }
  }
}
