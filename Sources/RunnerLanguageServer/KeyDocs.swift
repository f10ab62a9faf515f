/// The documentation of each key, as schema/tasks.schema.json gives it (a test keeps the two
/// the same): what completion and hover show.
enum KeyDocs {
  static let file: [(key: String, value: String)] = [
    ("version", "The format version: 1."),
    ("concurrency", "Most tasks running at once; -j overrides."),
    ("fail_fast", "Stop at the first failure (default true)."),
    ("default", "Targets when none is named."),
    ("env", "Environment variables; values may read ${{ deps.NAME.outputs.KEY }}."),
    (
      "key_env",
      "Inherited environment variables that count in every cacheable task's key. PATH and the variables env sets always count; nothing else of runner's environment does."
    ),
    (
      "secrets",
      "Environment variables whose values are secret: passed to every task, kept out of every key and upload, and shown as *** wherever runner prints or keeps text. A task that reads one runs on this machine."
    ),
    (
      "shell",
      "What shell tasks' commands run with: bash (bash --noprofile --norc -eo pipefail -c), sh (sh -e -c, the default), zsh, or an argv whose last word takes the script."
    ),
    (
      "params",
      "Params: set on the command line (runner TARGET NAME=value) or by a dependent's 'with:'; read as ${{ params.NAME }} and, in the task's environment, as $NAME."
    ),
    (
      "dotenv",
      ".env files, later over earlier; a missing file is an error unless optional. { sh: CMD } reads what CMD prints; override: true lets the entry win over runner's own environment."
    ),
    (
      "sources",
      "auto: every task that runs commands and names no sources or depfile of its own is keyed by the files its run was seen to read."
    ),
    (
      "includes",
      "Other task files: NAMESPACE: PATH (or { path, optional }); their tasks become NAMESPACE:task and run in their file's directory. The key '*' takes a glob and names each match after its directory."
    ),
    (
      "remote",
      "The remote cache and executor a run uses unless --remote-cache / --remote-exec name them. Tokens go in --remote-header or RUNNER_REMOTE_HEADERS, never here."
    ),
    ("tasks", "Task name → task."),
  ]

  static let task: [(key: String, value: String)] = [
    ("desc", "Shown by --list."),
    ("aliases", "Other names of the task, for the command line, deps and calls; shown by --list."),
    ("deps", "Tasks that must succeed first: a name, or { task: NAME, with: { PARAM: value }, for: VALUES }."),
    (
      "run",
      "A shell command, or a list run in order with the task's shell (sh -e -c unless 'shell' says otherwise); an entry { task: NAME, with: {...} } runs that task at that point; { run: CMD, ignore_error: true } goes on when CMD fails."
    ),
    ("image", "Built-in image steps, applied in order."),
    ("env", "Environment variables; values may read ${{ deps.NAME.outputs.KEY }}."),
    ("key_env", "Inherited environment variables that count in this task's key, besides PATH and the file's key_env."),
    (
      "secrets",
      "Environment variables this task reads whose values are secret (besides the file's secrets): kept out of its key and uploads, masked as ***, and the task runs on this machine."
    ),
    ("dir", "Working directory, relative to the task file."),
    ("priority", "Order among ready tasks."),
    ("timeout", "Limit per attempt."),
    ("retries", "Extra attempts after a failure."),
    (
      "sources",
      "Inputs (paths or globs) for up-to-date checks and the cache; auto: the files the task's processes are seen to read (traced)."
    ),
    ("outputs", "Files the task writes, for the cache."),
    ("wait_for", "Readiness gates."),
    ("resources", "Exclusive resources: tasks naming the same one never overlap."),
    (
      "shell",
      "What shell tasks' commands run with: bash (bash --noprofile --norc -eo pipefail -c), sh (sh -e -c, the default), zsh, or an argv whose last word takes the script."
    ),
    ("internal", "Only other tasks may depend on it: hidden from --list and refused as a target."),
    (
      "always",
      "A cleanup: runs once its deps have ended, whatever their outcome, also after fail-fast or Ctrl-C (a second Ctrl-C skips it)."
    ),
    (
      "service",
      "A command that does not end on its own (a server): ready when its wait_for gates pass after it starts, stopped once no task that still has to run depends on it."
    ),
    (
      "interactive",
      "The command gets runner's terminal (stdin, stdout, stderr, the foreground) and runs while no other task runs; its output is not captured."
    ),
    (
      "params",
      "Params: set on the command line (runner TARGET NAME=value) or by a dependent's 'with:'; read as ${{ params.NAME }} and, in the task's environment, as $NAME."
    ),
    (
      "dotenv",
      ".env files, later over earlier; a missing file is an error unless optional. { sh: CMD } reads what CMD prints; override: true lets the entry win over runner's own environment."
    ),
    (
      "matrix",
      "One node per combination of the axes' values (read as ${{ matrix.NAME }}); include/exclude as in GitHub Actions."
    ),
    ("if", "A command (exit 0 runs the task) or a ${{ }} expression; false skips the task (its dependents run)."),
    (
      "prompt",
      "A question asked at the terminal before the run; the task runs only if answered yes (--yes answers it)."
    ),
    (
      "depfile",
      "A Makefile-syntax dependency file the command writes (cc -MMD -MF out/a.d), relative to the task's directory: the files it names are the task's inputs from then on."
    ),
    (
      "jobserver",
      "How the tools the task runs (make, ninja, cargo) share runner's -j slots through the GNU make jobserver in MAKEFLAGS: true (the default: fifo if the make on PATH is 4.4 or later or there is none, else pipe), fifo, pipe, or false (none)."
    ),
    (
      "sandbox",
      "strict: the task's processes may read of the project only its sources and its dependencies' outputs, and write only its outputs and its $TMPDIR (Landlock, Linux 5.13); what the kernel refused fails the task, named."
    ),
    (
      "preconditions",
      "Commands that must succeed before the task runs (its shell, directory and environment); the first that fails fails the task with its message."
    ),
  ]
}
