#!/bin/sh
# Milliseconds per spawn+reap of runner's C spawn path vs glibc posix_spawn.
# Usage: Benchmarks/spawn/spawn.sh [count]
set -e
here=$(dirname "$0")
out=${TMPDIR:-/tmp}/runner-spawn-bench
cc -O2 -I"$here/../../Sources/CRunnerShim/include" -o "$out" "$here/bench.c"
"$out" "${1:-2000}"
