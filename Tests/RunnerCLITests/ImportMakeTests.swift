import Foundation
import Testing

/// What a Makefile import cannot carry fails loudly when it runs, never runs something else:
/// a default goal whose name is known only to make, a value known only when the command runs
/// needed inside a function, an object file only an implicit rule makes. `$(error)` in a
/// recipe stops the task with make's message before its commands, as make stops.
@Suite struct ImportMakeTests {
  func imported(_ makefile: String) throws -> TaskFileProject {
    let project = try TaskFileProject()
    try project.write("Makefile", makefile)
    let output = try project.run("import", "Makefile")
    #expect(output.status == 3, "\(output.stderr)")
    return project
  }

  @Test func aDefaultGoalTheImportCannotNameFailsInsteadOfAnother() throws {
    let project = try imported(
      """
      GOOS := $(shell echo linux)

      bin/app-$(GOOS): main.c
      \t@echo building $@

      clean:
      \t@echo cleaning

      """)
    defer { project.remove() }
    let output = try project.run()
    #expect(output.status == 1)
    #expect(output.stdout.contains("runner import: Makefile:3: not carried over: bin/app-$(GOOS): make's default goal"))
    #expect(!output.stdout.contains("cleaning"))
  }

  @Test func anErrorInARecipeStopsTheTaskWithMakesMessage() throws {
    let project = try imported(
      """
      release:
      \t@echo step one
      \t$(error VERSION is not set)

      """)
    defer { project.remove() }
    let output = try project.run("release")
    #expect(output.status == 1)
    #expect(output.stdout.contains("release | Makefile:3: *** VERSION is not set.  Stop."), "\(output.stdout)")
    #expect(!output.stdout.contains("step one"), "make expands the whole recipe first")
  }

  @Test func anErrorAValueKnownOnlyAtRunTimeDecidesIsNotTakenAsMade() throws {
    let project = try imported(
      """
      deploy:
      	@$(if $(ENV),,$(error ENV is not set))
      	@echo deploying

      """)
    defer { project.remove() }
    let output = try project.run(["deploy"], environment: ["ENV": "prod"])
    #expect(output.status == 1)
    #expect(output.stdout.contains("not carried over: $(ENV)"), "\(output.stdout)")
    #expect(!output.stdout.contains("ENV is not set"))
  }

  @Test func aValueKnownOnlyAtRunTimeInsideAFunctionFailsItsLine() throws {
    let project = try imported(
      """
      bump:
      \t@echo before
      \t@echo version $(GITHUB_REF:refs/tags/v%=%)

      """)
    defer { project.remove() }
    let output = try project.run("bump")
    #expect(output.status == 1)
    #expect(output.stdout.contains("bump | before"))
    #expect(
      output.stdout.contains(
        "not carried over: $(GITHUB_REF:refs/tags/v%=%): its value is known only when the command runs"),
      "\(output.stdout)")
  }

  @Test func anObjectOnlyAnImplicitRuleMakesFailsByName() throws {
    let project = try imported(
      """
      app: hello.o
      \t@echo linking

      hello.o: hello.c

      """)
    defer { project.remove() }
    try project.write("hello.c", "int x;\n")
    let output = try project.run("app")
    #expect(output.status == 1)
    #expect(
      output.stdout.contains("not carried over: hello.o: make builds it with an implicit rule"), "\(output.stdout)")
    #expect(!output.stdout.contains("linking"))
  }
}
