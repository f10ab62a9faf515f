#!/usr/bin/env bash
# A monorepo-sized include tree: a root file that includes 1 000 package files by one glob,
# 20 tasks each (20 000 tasks), with params, env and a dependency on another package's task.
# Times loading and dry-running it (`-n '**'`, best of 5), `--list`, and the peak memory of
# the dry run.
#
# usage: Benchmarks/includes/bench.sh [RUNNER] [PACKAGES] [TASKS_PER_PACKAGE]
set -euo pipefail
runner=$(realpath "${1:-.build/release/runner}")
packages=${2:-1000}
per=${3:-20}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" "$packages" "$per" <<'PY'
import os, sys
root, packages, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(f"{root}/tasks.yml", "w") as f:
    f.write("includes:\n  '*': 'pkgs/*/tasks.yml'\nparams:\n  mode: { default: debug, choices: [debug, release] }\n")
    f.write("env:\n  ROOT_DIR: /srv\ntasks:\n  setup: 'true'\n")
for p in range(packages):
    d = f"{root}/pkgs/p{p:04d}"
    os.makedirs(d)
    lines = ["env:", "  PKG_DIR: ${ROOT_DIR}/p%04d" % p, "tasks:"]
    for t in range(per):
        deps = [f"t{t-1}"] if t else [":setup"]
        if t == per - 1 and p:
            deps.append(f":p{p-1:04d}:t{per - 1}")
        lines.append(f"  t{t}:")
        lines.append(f"    deps: [{', '.join(repr(x) for x in deps)}]")
        lines.append(f"    env: {{ OUT: \"${{PKG_DIR}}/out/t{t}-${{{{ params.mode }}}}\" }}")
        lines.append("    run: 'true'")
    with open(f"{d}/tasks.yml", "w") as f:
        f.write("\n".join(lines) + "\n")
PY
echo "include tree: $packages files x $per tasks = $((packages * per + 1)) tasks, $(du -sh "$dir" | cut -f1)"
python3 - "$runner" "$dir" <<'PY'
import subprocess, sys, time
runner, root = sys.argv[1], sys.argv[2]
for mode in (["-n", "**"], ["-n", "**", "mode=release"], ["--list"], ["--graph", "json", "**"]):
    times = []
    for _ in range(5):
        start = time.perf_counter()
        subprocess.run([runner, *mode], stdout=subprocess.DEVNULL, check=True, cwd=root)
        times.append(time.perf_counter() - start)
    print(f"{' '.join(mode):24s} best of 5: {min(times):.3f} s  median {sorted(times)[2]:.3f} s")
PY
cd "$dir" && /usr/bin/time -f "peak RSS of the dry run: %M KB" "$runner" -n '**' > /dev/null
