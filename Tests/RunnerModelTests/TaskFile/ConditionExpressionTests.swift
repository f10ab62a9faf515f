import Testing

@testable import RunnerModel

@Suite struct ConditionExpressionTests {
  typealias Expression = ConditionExpression

  func env(_ name: String) -> Expression { .reference(.env(name)) }

  /// The error `text` fails with, or nil if it parses.
  func failure(_ text: String) -> ConditionParseError? {
    do {
      _ = try Expression.parse(text)
      return nil
    } catch {
      return error
    }
  }

  @Test func theTypicalCondition() throws {
    let text = "deps.check.outputs.changed == 'true' && params.mode != 'debug'"
    let expression = try Expression.parse(text)
    #expect(
      expression
        == .and(
          .equal(.reference(.output(task: "check", key: "changed")), .literal("true")),
          .notEqual(.reference(.param("mode")), .literal("debug"))))
    #expect(expression.description == text)
  }

  @Test func precedence() throws {
    #expect(
      try Expression.parse("env.A || env.B && !env.C == 'x'")
        == .or(env("A"), .and(env("B"), .equal(.not(env("C")), .literal("x")))))
    #expect(try Expression.parse("!!env.A") == .not(.not(env("A"))))
  }

  @Test func leftAssociative() throws {
    #expect(try Expression.parse("env.A == env.B == 'true'") == .equal(.equal(env("A"), env("B")), .literal("true")))
    #expect(try Expression.parse("env.A||env.B||env.C") == .or(.or(env("A"), env("B")), env("C")))
  }

  @Test func descriptionsParenthesizeOnlyWhereNeeded() throws {
    for text in [
      "(env.A || env.B) && env.C", "env.A == (env.B == env.C)", "!(env.A == 'x')", "env.A || env.B && env.C",
      "!env.A != 'it''s'",
    ] {
      let expression = try Expression.parse(text)
      #expect(expression.description == text)
      #expect(try Expression.parse(expression.description) == expression)
    }
    #expect(try Expression.parse("((env.A))  ==\"b\"").description == "env.A == 'b'")
  }

  @Test func literals() throws {
    #expect(try Expression.parse("'it''s'") == .literal("it's"))
    #expect(try Expression.parse("\"a'b\"") == .literal("a'b"))
    #expect(try Expression.parse("''") == .literal(""))
    #expect(try Expression.parse("true") == .literal("true"))
    #expect(try Expression.parse("!false") == .not(.literal("false")))
  }

  @Test func references() throws {
    let cases: [(String, Expression.Reference)] = [
      ("deps.build[os=linux,arch=x64].outputs.tag", .output(task: "build[os=linux,arch=x64]", key: "tag")),
      ("deps.a.outputs.b.outputs.c", .output(task: "a.outputs.b", key: "c")),
      ("deps.ns:task-1.x.outputs.k.v", .output(task: "ns:task-1.x", key: "k.v")),
      ("params.mode", .param("mode")), ("env.HOME", .env("HOME")), ("matrix.os", .matrix("os")),
      ("runner.os", .runner("os")), ("runner.arch", .runner("arch")),
    ]
    for (text, reference) in cases {
      #expect(try Expression.parse(text) == .reference(reference))
      #expect(reference.description == text)
    }
    #expect(
      try Expression.parse("deps.b[x=1].outputs.k=='v'")
        == .equal(.reference(.output(task: "b[x=1]", key: "k")), .literal("v")))
  }

  @Test func referencesAreListedInOrder() throws {
    let expression = try Expression.parse("env.B == 'x' || !(deps.t.outputs.k && env.B)")
    #expect(expression.references == [.env("B"), .output(task: "t", key: "k"), .env("B")])
  }

  @Test func substitutingReplacesKnownReferences() throws {
    let expression = try Expression.parse("params.mode == 'x' && deps.t.outputs.k")
    let known = expression.substituting { $0 == .param("mode") ? "x" : nil }
    #expect(known == .and(.equal(.literal("x"), .literal("x")), .reference(.output(task: "t", key: "k"))))
  }

  @Test func evaluation() throws {
    let values: [Expression.Reference: String] = [.env("ZERO"): "0", .env("NO"): "no", .param("m"): "fast"]
    func value(_ text: String) throws -> String { try Expression.parse(text).value { values[$0] } }
    func truth(_ text: String) throws -> Bool { try Expression.parse(text).isTrue { values[$0] } }
    #expect(try value("params.m") == "fast")
    #expect(try value("env.MISSING") == "")
    #expect(try value("'x'") == "x")
    #expect(try value("params.m == 'fast'") == "true")
    #expect(try value("params.m != 'fast'") == "false")
    #expect(try value("params.m == 'Fast'") == "false")
    #expect(try value("env.MISSING == ''") == "true")
    #expect(try value("params.m && env.NO") == "true")
    #expect(try value("params.m && env.ZERO") == "false")
    #expect(try value("env.ZERO || 'false'") == "false")
    #expect(try value("!env.ZERO") == "true")
    #expect(try value("true == 'true'") == "true")
    #expect(try !truth("env.MISSING") && !truth("'false'") && !truth("env.ZERO") && !truth("''"))
    #expect(try truth("env.NO") && truth("'0.0'") && truth("'FALSE'"))
  }

  @Test func errors() {
    let cases: [(String, Int, String)] = [
      ("", 0, "empty expression"), ("   ", 0, "empty expression"),
      ("env.A = 'x'", 6, "use '=='"), ("env.A & env.B", 6, "use '&&'"), ("env.A | env.B", 6, "use '||'"),
      ("'abc", 0, "unterminated string"), ("env.A == \"x", 9, "unterminated string"),
      ("(env.A == 'x'", 13, "missing ')'"), ("env.A 'x'", 6, "after a complete expression"),
      ("env.A == 'x')", 12, "after a complete expression"),
      ("env.A ==", 8, "expected a value, found the end"), ("env.A && )", 9, "expected a value, found ')'"),
      ("env.A @ 'x'", 6, "unexpected character '@'"), ("1 == '1'", 0, "write numbers as strings"),
      ("foo", 0, "unknown name 'foo'"),
      ("'x' == steps.a.outputs.b", 7, "'deps.', 'params.', 'env.', 'matrix.' or 'runner.'"),
      ("runner.name", 0, "'runner.os', 'runner.arch', 'runner.exe_suffix', 'runner.root' or 'runner.args'"),
      ("deps.a", 0, "deps.TASK.outputs.KEY"),
      ("deps.a.outputs.", 0, "deps.TASK.outputs.KEY"), ("deps.a.outputs.k:v", 0, "output key"),
      ("params.", 0, "params.NAME"), ("env.A.B", 0, "env.NAME"), ("deps.b[x=1.outputs.k", 6, "missing ']'"),
    ]
    for (text, offset, message) in cases {
      let error = failure(text)
      #expect(error?.offset == offset, "\(text)")
      #expect(error?.message.contains(message) == true, "\(text): \(error?.message ?? "parsed")")
    }
  }
}
