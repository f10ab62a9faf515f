/// Other tools' keys, so that an error names runner's equivalent rather than the nearest
/// spelling (`cmds` → `run`, not "did you mean 'deps'?").
extension TaskFileDecoder {
  /// go-task's, just's and make's words for what runner spells otherwise, at the file's top level.
  static let fileEquivalents: [String: String] = [
    "vars": "'params' (set on the command line as NAME=value) or 'env'",
    "include": "'includes'", "import": "'includes'", "imports": "'includes'", "include_files": "'includes'",
    "inculdes": "'includes'", "incldues": "'includes'", "includs": "'includes'", "includes_files": "'includes'",
    "dot_env": "'dotenv'", "env_file": "'dotenv'", "env_files": "'dotenv'", "dotenv_files": "'dotenv'",
    "param": "'params'", "parameters": "'params'", "arguments": "'params'", "args": "'params'",
    "set": "'shell' (for example [bash, -eo, pipefail, -c])", "shopt": "'shell'",
    "output": "none: runner prefixes each line with its task when tasks run side by side",
    "silent": "none: runner shows each command's output ('--output quiet' shows only failed tasks')",
    "method": "none: runner compares the content of 'sources' and 'outputs' itself",
    "run": "a task: put 'run' under 'tasks: NAME:'",
    "deps": "a task: put 'deps' under 'tasks: NAME:'",
    "jobserver": "a task key: put 'jobserver' under 'tasks: NAME:' of the tasks that need it",
    "recipes": "'tasks'", "targets": "'tasks'", "jobs": "'tasks'",
  ]
  /// The same, inside a task.
  static let taskEquivalents: [String: String] = [
    "cmds": "'run'", "cmd": "'run'", "script": "'run'", "steps": "'run'", "commands": "'run'",
    "vars": "'params' (set on the command line as NAME=value or by a dependent's 'with:') or 'env'",
    "generates": "'outputs'", "requires": "'params' with 'required: true'",
    "for": "'matrix' (one node per combination)",
    "confirm": "'prompt'",
    "defer": "a task with 'always: true' that depends on the work",
    "watch": "none yet", "prefix": "none: each line is prefixed with its task's name",
    "precondition": "'preconditions'",
    "status": "'sources' and 'outputs': runner skips a task whose inputs did not change",
    "platforms": "'if: ${{ runner.os == 'linux' }}'", "summary": "'desc'", "description": "'desc'",
    "label": "'desc'", "alias": "'aliases'",
    "dotenv_files": "'dotenv'", "env_file": "'dotenv'", "working_dir": "'dir'", "cwd": "'dir'",
    "dependencies": "'deps'", "needs": "'deps'", "depends_on": "'deps'",
    "ignore_error": "'- run: CMD' with 'ignore_error: true' in 'run'",
    "set": "'shell' (for example [bash, -eo, pipefail, -c])", "silent": "none: runner shows each command's output",
    "private": "'internal: true'", "param": "'params'", "parameters": "'params'", "args": "'params'",
    "when": "'if'", "condition": "'if'", "strategy": "'matrix'", "hidden": "'internal: true'",
    "method": "none: runner compares contents itself",
  ]
}
