#!/usr/bin/env bash
# Task output at full speed: one task prints SIZE of LINE-byte lines; runner's own stdout goes
# to /dev/null. Compares each output mode with the command alone (`cmd > /dev/null`), then
# 2-byte lines (lines per second), then the memory of caching and restoring a big output.
# Also the same task under GitHub Actions (a log group, each line checked for workflow commands).
# Each figure is the median of RUNS runs; the ratio is runner's median over the command's.
#
# usage: Benchmarks/output/bench.sh [RUNNER] [SIZE_MIB] [RUNS] [OUTPUT_MIB]
set -euo pipefail
runner=$(realpath "${1:-.build/release/runner}")
size=${2:-1024}
runs=${3:-5}
output_mib=${4:-300}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
# A line of 99 characters and its newline, repeated; 2-byte lines for the line rate.
cat > tasks.yml <<YML
tasks:
  print: yes "\$(printf '%099d' 0)" | head -c $((size << 20))
  short: yes | head -c $((size << 20))
  big:
    run: head -c $((output_mib << 20)) /dev/urandom > big.bin
    sources: [tasks.yml]
    outputs: [big.bin]
YML
python3 - "$runner" "$size" "$runs" "$output_mib" <<'PY'
import os, resource, shutil, subprocess, sys, time
runner, size, runs, output_mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def median(command, env=None):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, check=True, env=env)
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2], times[0], times[-1]
env = dict(os.environ, CI="", GITHUB_ACTIONS="")
alone, _, _ = median(["sh", "-c", f"yes \"$(printf '%099d' 0)\" | head -c {size << 20}"])
print(f"{size} MiB of 100-byte lines, median of {runs}")
print(f"  cmd > /dev/null            {alone:6.2f} s")
for mode in ("prefixed", "grouped", "quiet"):
    m, lo, hi = median([runner, "--output", mode, "print"], env)
    print(f"  runner --output {mode:9s}  {m:6.2f} s  {m / alone:5.2f}x  (spread {lo:.2f}-{hi:.2f} s)")
# GitHub Actions: the task's group, its lines checked for workflow commands.
m, lo, hi = median([runner, "print"], dict(env, GITHUB_ACTIONS="true"))
print(f"  runner on GitHub Actions   {m:6.2f} s  {m / alone:5.2f}x  (spread {lo:.2f}-{hi:.2f} s)")
lines = (size << 20) // 2
alone2, _, _ = median(["sh", "-c", f"yes | head -c {size << 20}"])
m, lo, hi = median([runner, "short"], env)
print(f"{size} MiB of 2-byte lines ({lines / 1e6:.0f} M lines): cmd alone {alone2:.2f} s; "
      f"runner {m:.2f} s = {lines / m / 1e6:.1f} M lines/s (spread {lo:.2f}-{hi:.2f} s)")
def peak(command):
    """Peak RSS in MiB of one run (GNU time's %M)."""
    done = subprocess.run(["/usr/bin/time", "-f", "%M", *command], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=True, env=env, text=True)
    return int(done.stderr.strip().splitlines()[-1]) / 1024
shutil.rmtree(".runner", ignore_errors=True)
store = peak([runner, "big"])
os.remove("big.bin")
restore = peak([runner, "big"])
assert os.path.getsize("big.bin") == output_mib << 20, "the output was not restored"
print(f"a {output_mib} MiB output: peak RSS {store:.0f} MiB storing it, {restore:.0f} MiB restoring it")
PY
