import Glibc
import RunnerBasics
import RunnerExecution
import RunnerModel

/// Asks the selected tasks' `prompt:`s before a run starts, one after another at the terminal
/// (so no question is lost among tasks' output): `y` or `yes` confirms. With `--yes` each is
/// confirmed without asking; with no terminal on stdin and stderr, none is, and each such task
/// fails saying so.
enum Prompter {
  static func ask(_ selection: GraphSelection, yes: Bool) -> PromptAnswers {
    var answers = PromptAnswers()
    let graph = selection.graph
    let terminal = isatty(0) == 1 && isatty(2) == 1
    for member in selection.members {
      guard let prompt = graph[member].prompt else { continue }
      let name = graph[member].name
      if yes {
        answers.confirmed.insert(name)
        continue
      }
      guard terminal else {
        answers.refusals[name] = "prompt '\(prompt)' needs an answer and there is no terminal: run with --yes"
        continue
      }
      let shown = name.hasSuffix("#1") ? String(name.dropLast(2)) : name
      Terminal.write("? \(shown): \(prompt) [y/N] ", to: 2)
      let answer = readLine(strippingNewline: true)?.lowercased().trimmingSpaces() ?? ""
      if answer == "y" || answer == "yes" {
        answers.confirmed.insert(name)
      } else {
        answers.refusals[name] = "not confirmed: '\(prompt)'"
      }
    }
    return answers
  }
}

extension String {
  fileprivate func trimmingSpaces() -> String {
    String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
  }
}
