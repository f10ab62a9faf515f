#!/usr/bin/env bash
# What the jobserver costs a spawn-bound run: TASKS `true` tasks side by side at -j2, each with
# its own pool (jobserver: true, the default: the descriptor form with make 4.3 on PATH; and
# jobserver: fifo), against jobserver: false. Alternating, median of RUNS.
#
#   bash Benchmarks/jobserver/overhead.sh [RUNNER] [TASKS] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runner=$(realpath "${1:-$here/../../.build/release/runner}")
tasks=${2:-3000}
runs=${3:-7}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for setting in true fifo false; do
  {
    echo "tasks:"
    for i in $(seq "$tasks"); do echo "  t$i: { run: 'true', jobserver: $setting }"; done
    printf '  all: { deps: ['
    seq -s, -f 't%g' "$tasks" | sed 's/,/, /g'
    echo '] }'
  } > "$work/$setting.yml"
done
for _ in $(seq "$runs"); do
  for setting in true fifo false; do
    start=$(date +%s%N)
    "$runner" -j2 --no-cache -f "$work/$setting.yml" all > /dev/null
    end=$(date +%s%N)
    echo "$setting $(( (end - start) / 1000000 ))" >> "$work/times"
  done
done
python3 - "$work/times" "$tasks" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    setting, ms = line.split()
    times.setdefault(setting, []).append(int(ms))
base = statistics.median(times["false"])
for setting in ["false", "true", "fifo"]:
    median = statistics.median(times[setting])
    extra = (median - base) * 1000 / int(sys.argv[2])
    print(f"jobserver: {setting:5} median {median:6.0f} ms  {sorted(times[setting])}  "
          f"{100 * (median - base) / base:+.1f} %  {extra:+.0f} µs a task")
PY
