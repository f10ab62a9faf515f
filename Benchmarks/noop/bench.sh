#!/usr/bin/env bash
# The no-op run: a TASKS-task graph (3 source files per task) where every task is up to date,
# runner vs ninja on the same graph. Median of 7 runs each, after the builds and a warm-up.
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
python3 "$here/gen.py" "$tasks" "$dir"
cd "$dir"
echo "graph: $tasks tasks, $((tasks * 3)) source files; runner $runner; ninja $($ninja --version)"
python3 - "$runner" "$ninja" <<'PY'
import statistics, subprocess, sys, time
runner, ninja = sys.argv[1], sys.argv[2]
# Every run starts from here, with this environment (which is part of runner's fingerprints:
# a different PATH, as a pyenv shim sets, would rightly re-run everything).
def run(command):
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
run([ninja, "-j2"])
run([runner, "-j2"])
# Files hashed within 2 s of their last change get no trusted stamp; let them age, then one
# run that records the stamps (rewriting the state once), as a user's next run would.
time.sleep(2.5)
run([runner, "-j2"])
def median(command):
    times = []
    for _ in range(7):
        start = time.perf_counter()
        run(command)
        times.append(time.perf_counter() - start)
    return statistics.median(times)
n = median([ninja, "-j2"])
r = median([runner, "-j2"])
up = subprocess.run([runner, "-j2"], capture_output=True, text=True).stdout.count(" up to date")
print(f"ninja  no-op: {n * 1000:7.1f} ms")
print(f"runner no-op: {r * 1000:7.1f} ms  ({r / n:.2f}x ninja; {up} tasks up to date)")
PY
