#!/usr/bin/env bash
# The remote cache against running the tasks and against the local cache, on one generated
# graph, in one run (issue 16):
#
#   Benchmarks/remote/bench.sh [TASKS [RUNS]]      (default 200 tasks, 5 runs; needs a release
#                                                   build: swift build -c release)
#
# Each task writes a 100 kB output from a seed and its two dependencies' outputs. For each
# server (buildbox-casd and BuildGrid over gRPC, nginx over HTTP), each run times, in fresh
# checkouts of the same graph:
#   none   runner with no cache at all (every task runs)
#   cold   a new seed, --remote-cache: every task runs and is stored
#   warm   a second checkout of that seed: every task restored from the remote cache
#   local  the cold checkout with its outputs removed: every task restored from .runner/cache
# and, on buildbox-casd only (the one server here with an Execution service):
#   exec   a new seed, --remote-exec: every task runs on casd's workers (buildbox-run in
#          bubblewrap, --jobs=2 as the script starts it) and is stored under its key
# and prints the medians (and min–max). It uses the servers named by RUNNER_TEST_* (from
# `.ci/remote-servers.sh start DIR; source DIR/env`), else starts its own and stops them.
set -euo pipefail
tasks=${1:-200}
runs=${2:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
runner=${RUNNER:-$root/.build/release/runner}
[ -x "$runner" ] || { echo "bench: build runner first (swift build -c release)" >&2; exit 2; }
work=$(mktemp -d)
started=""
cleanup() {
  [ -n "$started" ] && bash "$root/.ci/remote-servers.sh" stop "$work/servers" > /dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
if [ -z "${RUNNER_TEST_CASD:-}" ]; then
  mkdir -p "$work/servers"
  bash "$root/.ci/remote-servers.sh" start "$work/servers" > "$work/servers.log" 2>&1
  started=yes
  # shellcheck disable=SC1091
  source "$work/servers/env"
fi

graph() {
  echo "default: [$(seq -s ', ' -f 't%g' 0 $((tasks - 1)))]"
  echo "tasks:"
  for ((i = 0; i < tasks; i++)); do
    local layer=$((i / 20)) reads=""
    echo "  t$i:"
    if [ $layer -gt 0 ]; then
      local a=$((i - 20)) b=$(((layer - 1) * 20 + (i + 7) % 20))
      reads=" out/t$a.txt out/t$b.txt"
      echo "    deps: [t$a, t$b]"
    fi
    echo "    run: mkdir -p out && { echo $i; cat src/seed.txt$reads | head -c 1000; yes line $i | head -c 100000; } > out/t$i.txt"
    echo "    sources: [src/seed.txt]"
    echo "    outputs: [out/t$i.txt]"
  done
}

checkout() { # DIR SEED
  mkdir -p "$1/src"
  graph > "$1/tasks.yml"
  echo "$2" > "$1/src/seed.txt"
}

timed() { # DIR ARGS... → seconds on stdout
  local start end
  start=$(date +%s.%N)
  (cd "$1" && shift && "$runner" -j 2 "$@" > /dev/null 2> "$work/last.err") || {
    cat "$work/last.err" >&2
    exit 1
  }
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

stats() { # values → "median (min–max)"
  sort -g | awk '{ v[NR] = $1 } END { printf "%.2f s (%.2f–%.2f)", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

echo "runner $("$runner" --version), $tasks tasks, $runs runs, $(nproc) cores"
for server in CASD BUILDGRID HTTP_CACHE; do
  var=RUNNER_TEST_$server
  url=${!var}
  : > "$work/none" && : > "$work/cold" && : > "$work/warm" && : > "$work/local"
  for ((run = 0; run < runs; run++)); do
    seed=$RANDOM$RANDOM$RANDOM
    rm -rf "$work/a" "$work/b" "$work/c"
    checkout "$work/c" "x$seed"
    timed "$work/c" --no-cache >> "$work/none"
    checkout "$work/a" "$seed"
    checkout "$work/b" "$seed"
    timed "$work/a" --remote-cache "$url" >> "$work/cold"
    grep -q "0 hits, $tasks misses, $tasks stored" "$work/last.err" || { cat "$work/last.err" >&2; exit 1; }
    timed "$work/b" --remote-cache "$url" >> "$work/warm"
    grep -q "$tasks hits, 0 misses" "$work/last.err" || { cat "$work/last.err" >&2; exit 1; }
    rm -rf "$work/a/out"
    timed "$work/a" >> "$work/local"
  done
  printf '%-11s none %s | cold %s | warm %s | local %s\n' "$server" "$(stats < "$work/none")" \
    "$(stats < "$work/cold")" "$(stats < "$work/warm")" "$(stats < "$work/local")"
done
: > "$work/none" && : > "$work/exec"
for ((run = 0; run < runs; run++)); do
  rm -rf "$work/c" "$work/e"
  checkout "$work/c" "n$RANDOM$RANDOM$RANDOM"
  timed "$work/c" --no-cache >> "$work/none"
  checkout "$work/e" "e$RANDOM$RANDOM$RANDOM"
  timed "$work/e" --remote-exec "$RUNNER_TEST_CASD" >> "$work/exec"
  grep -q "$tasks executed, 0 from its cache" "$work/last.err" || { cat "$work/last.err" >&2; exit 1; }
done
printf '%-11s none %s | exec %s\n' "CASD" "$(stats < "$work/none")" "$(stats < "$work/exec")"
