import ArgumentParser
import RunnerKit

/// `runner import FILE`: a subcommand of its own, reached before the run's parser sees the
/// words (a task named `import` is `runner :import`).
struct ImportCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "runner import",
    abstract: "Convert a Taskfile.yml, justfile or Makefile into runner's tasks.yml.",
    discussion:
      "Writes tasks.yml beside FILE (never over an existing file unless --force) and prints on stderr every "
      + "construct carried over approximately or not at all, with FILE:line and the reason. Exit 0 when the "
      + "import is exact, 3 when the report has entries, 2 when FILE cannot be imported.")

  @Argument(help: ArgumentHelp("The file to import.", valueName: "file"))
  var file: String

  @Option(name: [.short, .long], help: ArgumentHelp("Where to write the task file ('-': stdout).", valueName: "path"))
  var output: String?

  @Flag(help: "Overwrite the output file if it exists.")
  var force = false

  @Option(help: ArgumentHelp("The format, when the name does not say it: taskfile, justfile or makefile."))
  var format: String?

  func execute() -> Int32 {
    ImportRun(file: file, output: output, force: force, format: format).run()
  }
}
