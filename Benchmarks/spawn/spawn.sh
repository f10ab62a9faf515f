#!/bin/sh
# Milliseconds per spawn+reap of runner's C spawn path vs glibc posix_spawn.
# Usage: Benchmarks/spawn/spawn.sh [count]
set -e
here=$(dirname "$0")
shim=$here/../../Sources/CRunnerShim
out=${TMPDIR:-/tmp}/runner-spawn-bench
# bench.c includes runner_shim.c; the shim's other files are linked beside it.
cc -O2 -I"$shim/include" -o "$out" "$here/bench.c" "$shim/sandbox.c" "$shim/spawn_cpu.c" "$shim/tracer.c" "$shim/watchdog.c" \
  "$shim/malloc_tuning.c" -lpthread
"$out" "${1:-2000}"
