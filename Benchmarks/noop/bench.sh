#!/usr/bin/env bash
# The three incremental paths on a TASKS-task graph (3 source files per task), runner vs ninja
# at -j2, each tool in its own copy of the graph, in paired rounds (ninja, then runner):
#   no-op        nothing changed since the last run;
#   one edit     one source file of one task (the last, which nothing depends on) was edited,
#                so that task runs again;
#   task file    the task file was edited without changing any task (a comment appended);
#                ninja's figure for this row is its no-op (it reads its manifest on every run).
# Prints the median of ROUNDS rounds (default 7) of each, and the spread.
#
# usage: Benchmarks/noop/bench.sh [RUNNER] [TASKS]
#   RUNNER defaults to the release build: swift build -c release --scratch-path .build-cache-release
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runner=$(realpath "${1:-$here/../../.build-cache-release/release/runner}")
tasks=${2:-10000}
ninja=$(command -v ninja || echo "$HOME/.cache/runner-peers/bin/ninja")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# One copy of the graph per tool: in a shared directory each would see the other's outputs
# as changed and rebuild them (ninja by mtime), and the other would then re-check them.
python3 "$here/gen.py" "$tasks" "$dir/ninja"
python3 "$here/gen.py" "$tasks" "$dir/runner"
echo "graph: $tasks tasks, $((tasks * 3)) source files; runner $runner; ninja $($ninja --version)"
python3 - "$runner" "$ninja" "$dir" "$tasks" "${ROUNDS:-7}" <<'PY'
import statistics, subprocess, sys, time
runner, ninja, root, tasks, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
def run(command, where):
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True, cwd=f"{root}/{where}")
def timed(command, where):
    start = time.perf_counter()
    run(command, where)
    return time.perf_counter() - start
N, R = [ninja, "-j2"], [runner, "-j2", "**"]
run(N, "ninja")
run(R, "runner")
# Outputs get trusted stamps from the run after the one that wrote them (docs/caching.md): one
# run that records them (rewriting the state once), as a user's next run would.
run(R, "runner")
run(N, "ninja")
last = tasks - 1
rows = {"no-op": ([], []), "one edit": ([], []), "task file": ([], [])}
for round in range(rounds):
    # One source edited (outside the timing), in both copies.
    for where in ("ninja", "runner"):
        with open(f"{root}/{where}/src/t{last}/a.c", "a") as source:
            source.write(f"/* edit {round} */\n")
    rows["one edit"][0].append(timed(N, "ninja"))
    rows["one edit"][1].append(timed(R, "runner"))
    # The edited task's new outputs have no trusted stamp yet (docs/caching.md): settle with
    # one run (which records the stamps), then time the steady no-op.
    run(R, "runner")
    rows["no-op"][0].append(timed(N, "ninja"))
    rows["no-op"][1].append(timed(R, "runner"))
    with open(f"{root}/runner/tasks.yml", "a") as file:
        file.write(f"# edit {round}\n")
    rows["task file"][0].append(timed(N, "ninja"))
    rows["task file"][1].append(timed(R, "runner"))
summary = subprocess.run(R, capture_output=True, text=True, cwd=f"{root}/runner").stdout.strip().splitlines()[-1]
print(f"{'path':10} {'ninja ms':>9} {'runner ms':>10} {'runner/ninja':>13}   spread of the paired ratios")
for name, (n, r) in rows.items():
    ratios = sorted(b / a for a, b in zip(n, r))
    print(f"{name:10} {statistics.median(n) * 1000:9.1f} {statistics.median(r) * 1000:10.1f} "
          f"{statistics.median(ratios):12.2f}x   {ratios[0]:.2f}-{ratios[-1]:.2f}")
print("runner's last summary:", summary)
PY
