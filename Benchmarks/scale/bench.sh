#!/usr/bin/env bash
# How runner's commands grow with the size of the task file, beside `ninja -n` on the same graph.
#
#   Benchmarks/scale/bench.sh RUNNER [SIZES] [SHAPES]
#     RUNNER   a release build (swift build -c release; .build/release/runner)
#     SIZES    default "10000 100000 1000000"
#     SHAPES   default "wide tree" (Benchmarks/peers/gen_graph.py: wide = N tasks under `all`,
#              tree = layers of 50, two deps a task)
#   NINJA_WIDE_MAX=100000   the largest wide graph ninja -n is timed on (it is quadratic there)
#   RUN_SIZES="10000"   also run the graph (spawning `true` per task, -j2, with --events,
#                       --junit, --trace and --timeline) at these sizes; none by default
#
# For each command: seconds and peak memory (GNU time), and the growth against the size 10×
# smaller. ninja comes from the peers' venv (Benchmarks/peers/compare.py installs it).
set -euo pipefail
runner=$(readlink -f "$1")
sizes=${2:-"10000 100000 1000000"}
shapes=${3:-"wide tree"}
here=$(cd "$(dirname "$0")" && pwd)
gen=$here/../peers/gen_graph.py
peers=${PEERS_VENV:-$HOME/.cache/runner-peers}
[ -x "$peers/bin/ninja" ] || { python3 -m venv "$peers" && "$peers/bin/pip" install -q ninja; }
work=${SCALE_DIR:-/tmp/runner-scale}
mkdir -p "$work"

# measure LABEL SHAPE N COMMAND... : one line "shape n label seconds MB growth"
declare -A seconds
measure() {
  local label=$1 shape=$2 n=$3
  shift 3
  local out status=ok
  /usr/bin/time -o "$work/time.txt" -f '%e %M' "$@" > /dev/null 2> "$work/stderr.txt" || status="failed: $(head -c 200 "$work/stderr.txt")"
  out=$(tail -1 "$work/time.txt")
  local time=${out% *} kb=${out#* }
  local previous=${seconds[$shape/$label/$((n / 10))]:-}
  local growth=""
  if [ -n "$previous" ]; then growth=$(python3 -c "print(f'x{max($time,0.01)/max($previous,0.01):.1f}')"); fi
  seconds[$shape/$label/$n]=$time
  printf '%-5s %8s  %-16s %7.2f s %7d MB  %s\n' "$shape" "$n" "$label" "$time" $((kb / 1024)) "$growth"
  [ "$status" = ok ] || echo "      ($status)"
}

printf '%-5s %8s  %-16s %9s %10s  %s\n' shape tasks command time peak growth
for shape in $shapes; do
  for n in $sizes; do
    dir=$work/$shape-$n
    [ -f "$dir/tasks.yml" ] || python3 "$gen" "$shape" "$n" "$dir" > /dev/null
    cd "$dir"
    # A run leaves state in .runner that -n and the others would read: measure without it.
    rm -rf .runner
    # ninja -n is quadratic on a wide graph (100 000: 7 s, 1 000 000: many minutes): skipped there.
    if [ "$shape" != wide ] || [ "$n" -le "${NINJA_WIDE_MAX:-100000}" ]; then
      measure "ninja -n" "$shape" "$n" "$peers/bin/ninja" -n all
    fi
    measure "-n" "$shape" "$n" "$runner" --no-cache -n all
    measure "--list" "$shape" "$n" "$runner" --list
    measure "--describe" "$shape" "$n" "$runner" --describe all
    for format in tree dot mermaid json html; do
      measure "--graph $format" "$shape" "$n" "$runner" --graph "$format" all
    done
    for run in ${RUN_SIZES:-}; do
      [ "$run" = "$n" ] || continue
      rm -rf .runner
      measure "run + reports" "$shape" "$n" "$runner" -j2 --no-cache --events "$work/events.jsonl" \
        --junit "$work/junit.xml" --trace "$work/trace.json" --timeline "$work/timeline.svg" all
    done
  done
done
