import Testing

@testable import RunnerModel

@Suite struct CommandSplitterTests {
  @Test(arguments: [
    ("true", ["true"]),
    ("false", ["false"]),
    ("cc -c main.c -o build/main.o", ["cc", "-c", "main.c", "-o", "build/main.o"]),
    ("  swift   build\t-c release ", ["swift", "build", "-c", "release"]),
    ("make FOO=bar --jobs=4", ["make", "FOO=bar", "--jobs=4"]),
    ("/usr/bin/env A=1 tool", ["/usr/bin/env", "A=1", "tool"]),
    ("cp a~b c,d e:f g+h user@host", ["cp", "a~b", "c,d", "e:f", "g+h", "user@host"]),
    ("./scripts/build.sh", ["./scripts/build.sh"]),
    ("tool naïve", ["tool", "naïve"]),
    ("test -f x", ["test", "-f", "x"]),
  ])
  func simpleCommandsRunDirectly(command: String, expected: [String]) {
    #expect(CommandSplitter.directArguments(command) == expected)
  }

  @Test(arguments: [
    "", "   ",
    // quoting and escapes
    "echo 'a b'", "ls \"x\"", "ls a\\ b",
    // expansion
    "ls $HOME", "ls ${HOME}", "ls `pwd`", "ls $(pwd)", "ls ~", "ls ~/x", "ls *.c", "ls a?", "ls [ab]", "ls {a,b}",
    // operators and redirection
    "a | b", "a || b", "a && b", "a & ", "a; b", "a > out", "a < in", "a 2>&1", "(a)", "a\nb", "a\rb",
    // comments, negation, assignments
    "make # comment", "! false", "FOO=1 make", "=x",
    // builtins and keywords
    "cd /tmp", "export A", "exit 1", "if", "set -e", ". ./env", "source env", "exec tool", "ulimit -n 10", "umask 022",
    "echo hi", "pwd", "printf x", "kill 1", "eval x", "while", "time make", "trap x", "wait", ":",
    "[ -f x ]", "[[ x ]]",
  ])
  func shellSyntaxNeedsTheShell(command: String) {
    #expect(CommandSplitter.directArguments(command) == nil)
  }
}
