#!/usr/bin/env bash
# Loading, validating and printing a large task file: the dry run, the graph renderers and
# --list, best of 5 each, plus the peak memory of the dry run.
#
# usage: Benchmarks/load/bench.sh [RUNNER] [TASKS]
set -euo pipefail
runner=$(realpath "${1:-.build/release/runner}")
tasks=${2:-10000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 "$(dirname "$0")/../peers/gen_graph.py" tree "$tasks" "$dir" >/dev/null
echo "tasks.yml: $(wc -c < "$dir/tasks.yml") bytes, $tasks tasks (tree shape)"
python3 - "$runner" "$dir/tasks.yml" <<'PY'
import subprocess, sys, time
runner, file = sys.argv[1], sys.argv[2]
for mode in (["-n"], ["--graph", "json"], ["--graph", "dot"], ["--graph", "mermaid"], ["--list"]):
    best = min(
        (lambda t0: (subprocess.run([runner, file, *mode, "**"], stdout=subprocess.DEVNULL, check=True), time.perf_counter() - t0)[1])(time.perf_counter())
        for _ in range(5))
    print(f"{' '.join(mode):14s} best of 5: {best:.3f} s")
PY
/usr/bin/time -f "peak RSS of the dry run: %M KB" "$runner" "$dir/tasks.yml" -n "**" > /dev/null
