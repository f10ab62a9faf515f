#!/usr/bin/env bash
# Early cut-off: a chain of TASKS tasks where the first filters comments out of a source and
# each next one copies the previous output. An edit that only changes a comment re-runs the
# first task, which writes the same bytes; the rest of the chain stays up to date. Prints, for
# runner and for ninja (with and without `restat = 1`, its form of the same idea), how many
# commands ran and how long the run took. ninja's restat compares modification times, so it
# cuts off only after a command that leaves its output untouched; these commands rewrite
# their output (as most do), and runner compares content.
#
# usage: Benchmarks/cutoff/bench.sh [RUNNER] [TASKS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runner=$(realpath "${1:-$here/../../.build-cache-release/release/runner}")
tasks=${2:-1000}
ninja=$(command -v ninja || echo "$HOME/.cache/runner-peers/bin/ninja")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" "$tasks" <<'PY'
import os, sys
root, count = sys.argv[1], int(sys.argv[2])
for tool in ("runner", "ninja", "ninja-restat"):
    os.makedirs(f"{root}/{tool}/out", exist_ok=True)
    with open(f"{root}/{tool}/src.txt", "w") as f:
        f.write("# comment 0\nvalue\n")
yaml = ["tasks:", "  t0:", "    run: grep -v '^#' src.txt > out/t0 && echo ran >> runs.log",
        "    sources: [src.txt]", "    outputs: [out/t0]"]
for i in range(1, count):
    yaml += [f"  t{i}:", f"    deps: [t{i-1}]", f"    run: cat out/t{i-1} > out/t{i} && echo ran >> runs.log",
             f"    sources: [out/t{i-1}]", f"    outputs: [out/t{i}]"]
open(f"{root}/runner/tasks.yml", "w").write("\n".join(yaml) + "\n")
for tool, restat in (("ninja", ""), ("ninja-restat", "  restat = 1\n")):
    lines = ["rule filter", "  command = grep -v '^#' $in > $out && echo ran >> runs.log", restat,
             "rule copy", "  command = cat $in > $out && echo ran >> runs.log", restat,
             "build out/t0: filter src.txt"]
    lines += [f"build out/t{i}: copy out/t{i-1}" for i in range(1, count)]
    open(f"{root}/{tool}/build.ninja", "w").write("\n".join(lines) + "\n")
PY
run() { (cd "$dir/$1" && shift && "$@" > /dev/null); }
count() { if [ -f "$dir/$1/runs.log" ]; then wc -l < "$dir/$1/runs.log"; else echo 0; fi; }
run runner "$runner" -j2 "**"
run ninja "$ninja" -j2
run ninja-restat "$ninja" -j2
# This run trusts the outputs' stamps (written before it started), as a user's next run would.
run runner "$runner" -j2 "**"
echo "chain of $tasks tasks; an edit that changes only a comment in the first task's source"
for tool in runner ninja ninja-restat; do
  rm -f "$dir/$tool/runs.log"
  printf '# comment 1\nvalue\n' > "$dir/$tool/src.txt"
  start=$(date +%s%N)
  if [ "$tool" = runner ]; then run runner "$runner" -j2 "**"; else run "$tool" "$ninja" -j2; fi
  end=$(date +%s%N)
  printf '%-13s %5s commands ran, %6.1f ms\n' "$tool" "$(count "$tool")" "$(((end - start) / 100000))e-1"
done
