#!/usr/bin/env bash
# Peak resident memory of runner on large graphs, measured with GNU time (%M, in KiB).
#
#   Benchmarks/memory/peak-rss.sh            build release into .build-memory, then measure
#   RUNNER=path/to/runner Benchmarks/memory/peak-rss.sh   measure an existing binary
#
# Cases: a dry run (-n) of 100 000 tasks, and a real run of 10 000 tasks (`true` each, -j8).
# Each graph is a layered DAG: every task depends on up to two tasks of the previous layer of
# 100, so the file has about two edges per task and real fan-in/fan-out.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${RUNNER:-}" ]; then
  swift build -c release --scratch-path .build-memory --product runner >/dev/null
  RUNNER=$PWD/.build-memory/release/runner
fi
[ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

graph() {
  local count=$1 file=$2
  awk -v n="$count" 'BEGIN {
    print "tasks:"
    for (i = 0; i < n; i++) {
      if (i < 100) { printf "  t%d: \"true\"\n", i; continue }
      a = i - 100; b = i - 100 - (i % 7) - 1
      if (b < 0 || int(b / 100) != int(a / 100)) b = a
      if (a == b) printf "  t%d: {deps: [t%d], run: \"true\"}\n", i, a
      else printf "  t%d: {deps: [t%d, t%d], run: \"true\"}\n", i, a, b
    }
  }' >"$file"
}

measure() {
  local label=$1 file=$2
  shift 2
  local start end rss
  start=$(date +%s.%N)
  if ! /usr/bin/time -f "%M" -o "$work/rss" "$RUNNER" -f "$file" --no-cache "$@" "**" >/dev/null 2>"$work/err"; then
    echo "FAIL: $label" >&2
    tail -5 "$work/err" >&2
    exit 1
  fi
  rss=$(tail -1 "$work/rss")
  end=$(date +%s.%N)
  printf "%-34s peak RSS %7.1f MiB   wall %6.2f s\n" "$label" "$(echo "$rss / 1024" | bc -l)" "$(echo "$end - $start" | bc -l)"
}

graph 100000 "$work/dry.yml"
graph 10000 "$work/run.yml"
echo "runner: $RUNNER"
measure "dry run, 100 000 tasks (-n)" "$work/dry.yml" -n
measure "run, 10 000 tasks (-j8)" "$work/run.yml" -j8
