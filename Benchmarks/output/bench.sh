#!/usr/bin/env bash
# Task output at full speed: one task prints SIZE MiB of 100-byte, 1-byte and 100 KiB lines;
# runner's own stdout goes to /dev/null. Compares each output mode, and the same task under
# GitHub Actions (a log group, each line checked for workflow commands), with the command alone
# (`cmd > /dev/null`) and with the command through one more pipe (`cmd | cat > /dev/null`, the
# least any reader of a task's output pays); then the memory of caching and restoring a big
# output. Each figure is the median of RUNS rounds (each command once a round), with the spread.
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
# Lines of 100 bytes, of 1 byte (only the newline), and of 100 KiB; and a 300 MiB output.
long="\$(printf '%0102399d' 0)"
cat > tasks.yml <<YML
tasks:
  print: yes "\$(printf '%099d' 0)" | head -c $((size << 20))
  empty: yes '' | head -c $((size << 20))
  long: yes "$long" | head -c $((size << 20))
  big:
    run: head -c $((output_mib << 20)) /dev/urandom > big.bin
    sources: [tasks.yml]
    outputs: [big.bin]
YML
python3 - "$runner" "$size" "$runs" "$output_mib" <<'PY'
import os, shutil, statistics, subprocess, sys, time
runner, size, runs, output_mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
env = dict(os.environ, CI="", GITHUB_ACTIONS="")
commands = {
    "print": f"yes \"$(printf '%099d' 0)\" | head -c {size << 20}",
    "empty": f"yes '' | head -c {size << 20}",
    "long": f"yes \"$(printf '%0102399d' 0)\" | head -c {size << 20}",
}
labels = {"print": "100-byte lines", "empty": "1-byte lines", "long": "100 KiB lines"}
for task, command in commands.items():
    # Each command of a round once, in turn, so that a slow minute touches all alike.
    variants = {
        "cmd > /dev/null": (["sh", "-c", command], env),
        "cmd | cat > /dev/null": (["sh", "-c", command + " | cat"], env),
        "runner --output prefixed": ([runner, "--output", "prefixed", task], env),
        "runner --output grouped": ([runner, "--output", "grouped", task], env),
        "runner --output quiet": ([runner, "--output", "quiet", task], env),
        "runner on GitHub Actions": ([runner, task], dict(env, GITHUB_ACTIONS="true")),
    }
    times = {name: [] for name in variants}
    for _ in range(runs):
        for name, (argv, environment) in variants.items():
            start = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, env=environment)
            times[name].append(time.perf_counter() - start)
    alone = statistics.median(times["cmd > /dev/null"])
    floor = statistics.median(times["cmd | cat > /dev/null"])
    print(f"{size} MiB of {labels[task]}, median of {runs} (spread); ratios to the command alone and to '| cat'")
    for name, values in times.items():
        m = statistics.median(values)
        print(f"  {name:26s} {m:6.3f} s  {m / alone:5.2f}x  {m / floor:5.2f}x  ({min(values):.3f}-{max(values):.3f})")
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
print(f"a {output_mib} MiB output: peak RSS {store:.0f} MiB storing it, {restore:.0f} MiB restoring it "
      "(Benchmarks/cache/bench.py: time and bytes read)")
PY
