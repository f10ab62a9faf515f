#!/usr/bin/env bash
# The live view's cost: a 5 000-task graph (tree, each task `echo`) at -j2 with --ui tui and
# with --ui lines, both on a real terminal (a tmux pane, 120×40), alternating, median of RUNS.
#
#   bash Benchmarks/tui/bench.sh [RUNNER] [TASKS] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runner=$(realpath "${1:-$here/../../.build/release/runner}")
tasks=${2:-5000}
runs=${3:-7}
work=$(mktemp -d)
socket="runner-bench-$$"
trap 'tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
python3 "$here/../peers/gen_graph.py" tree "$tasks" "$work" 'echo building' >/dev/null
cat > "$work/inner.sh" <<INNER
cd "$work"
for i in \$(seq $runs); do
  for ui in tui lines; do
    start=\$(date +%s%N)
    "$runner" -j2 --ui \$ui all || true
    end=\$(date +%s%N)
    echo "\$ui \$(( (end - start) / 1000000 ))" >> "$work/times"
  done
done
tmux -L "$socket" wait-for -S done
INNER
tmux -L "$socket" -f /dev/null new-session -d -x 120 -y 40 "env -u CI bash $work/inner.sh"
tmux -L "$socket" wait-for done
python3 - "$work/times" <<'PY'
import statistics, sys
times = {}
for line in open(sys.argv[1]):
    ui, ms = line.split()
    times.setdefault(ui, []).append(int(ms))
tui, lines = statistics.median(times["tui"]), statistics.median(times["lines"])
print(f"tui   median {tui:.0f} ms  {sorted(times['tui'])}")
print(f"lines median {lines:.0f} ms  {sorted(times['lines'])}")
print(f"cost  {100 * (tui - lines) / lines:+.1f} %")
PY
