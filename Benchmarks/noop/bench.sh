#!/usr/bin/env bash
# The no-op run: a TASKS-task graph (3 source files per task) where every task is up to date,
# runner vs ninja on the same graph. Median of 7 runs each, after the builds and a warm-up.
# runner's figure is for a run that finds its no-op record (.runner/noop) valid; the last line
# is for runs whose task file was just edited, which take the full path.
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
python3 - "$runner" "$ninja" "$dir" <<'PY'
import statistics, subprocess, sys, time
runner, ninja, root = sys.argv[1], sys.argv[2], sys.argv[3]
# Every run starts from here, with this environment (which is part of runner's fingerprints:
# a different PATH, as a pyenv shim sets, would rightly re-run everything).
def run(command, where):
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True, cwd=f"{root}/{where}")
run([ninja, "-j2"], "ninja")
run([runner, "-j2"], "runner")
# Files hashed within 2 s of their last change get no trusted stamp; let them age, then one
# run that records the stamps (rewriting the state once), as a user's next run would.
time.sleep(2.5)
run([runner, "-j2"], "runner")
run([ninja, "-j2"], "ninja")
def median(command, where):
    times = []
    for _ in range(7):
        start = time.perf_counter()
        run(command, where)
        times.append(time.perf_counter() - start)
    return statistics.median(times)
n = median([ninja, "-j2"], "ninja")
r = median([runner, "-j2"], "runner")
last = subprocess.run([runner, "-j2"], capture_output=True, text=True, cwd=f"{root}/runner").stdout
up = last.count(" up to date")
# The full path, which a run takes when its no-op record does not apply: here because the task
# file changed (a comment appended before each run, outside the timing).
times = []
for round in range(7):
    with open(f"{root}/runner/tasks.yml", "a") as tasks:
        tasks.write(f"# edit {round}\n")
    start = time.perf_counter()
    run([runner, "-j2"], "runner")
    times.append(time.perf_counter() - start)
full = statistics.median(times)
print(f"ninja  no-op: {n * 1000:7.1f} ms")
print(f"runner no-op: {r * 1000:7.1f} ms  ({r / n:.2f}x ninja; {up} tasks up to date)")
print("runner's last summary:", last.strip().splitlines()[-1])
print(f"runner, task file edited (full path): {full * 1000:7.1f} ms  ({full / n:.2f}x ninja)")
PY
