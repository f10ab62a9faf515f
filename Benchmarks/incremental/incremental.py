#!/usr/bin/env python3
"""Incremental runs, runner against ninja on the same N-task graph (3 sources per task).

Paths timed (-j2, after a first build and a warm-up), each run paired: runner, then ninja,
after the same change:
  noop       nothing changed
  one-edit   one source of the last task rewritten (one task runs)
  file-edit  the task file / build.ninja gained a comment (nothing runs)
Prints one line per path: 'PATH runner_ms ninja_ms ratio (lowest-highest)', the times being
medians and the ratio the median of the paired ratios, with their spread.

usage: incremental.py RUNNER [N] [RUNS] [--keep DIR]   (DIR is kept, for a profile)
ninja: on PATH, or in $PEERS_VENV (default ~/.cache/runner-peers, made by ../peers/compare.py).
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

argv, keep = sys.argv[1:], None
if "--keep" in argv:  # --keep DIR
    at = argv.index("--keep"); keep = argv[at + 1]; del argv[at:at + 2]
for a in list(argv):  # --keep=DIR
    if a.startswith("--keep="): keep = a.split("=", 1)[1]; argv.remove(a)
args = argv
runner = os.path.realpath(args[0])
n = int(args[1]) if len(args) > 1 else 10000
runs = int(args[2]) if len(args) > 2 else 7
venv = os.environ.get("PEERS_VENV", os.path.expanduser("~/.cache/runner-peers"))
ninja = shutil.which("ninja") or os.path.join(venv, "bin", "ninja")
root = keep or tempfile.mkdtemp(prefix="runner-incremental-")

def write_graph(d):
    os.makedirs(f"{d}/out", exist_ok=True)
    y, nj = ["tasks:"], ["rule cat", "  command = cat $in > $out", ""]
    for i in range(n):
        os.makedirs(f"{d}/src/t{i}", exist_ok=True)
        for x in "abc":
            with open(f"{d}/src/t{i}/{x}.c", "w") as f:
                f.write(f"int f{i}{x}(void) {{ return {i}; }}\n")
        deps = sorted({k for k in (i // 2, i - 1) if 0 <= k < i})
        y.append(f"  t{i}:")
        if deps:
            y.append(f"    deps: [{', '.join(f't{k}' for k in deps)}]")
        y += [f"    run: cat src/t{i}/a.c src/t{i}/b.c src/t{i}/c.c > out/t{i}.o",
              f'    sources: ["src/t{i}/*.c"]', f"    outputs: [out/t{i}.o]"]
        imp = " ".join(f"out/t{k}.o" for k in deps)
        nj.append(f"build out/t{i}.o: cat src/t{i}/a.c src/t{i}/b.c src/t{i}/c.c" + (f" | {imp}" if imp else ""))
    y += ["  all:", f"    deps: [{', '.join(f't{i}' for i in range(n))}]"]
    open(f"{d}/tasks.yml", "w").write("\n".join(y) + "\n")
    open(f"{d}/build.ninja", "w").write("\n".join(nj) + "\n")

for t in ("r", "n"):
    write_graph(f"{root}/{t}")
cmd = {"r": [runner, "-j2", "all"], "n": [ninja, "-j2"]}

def go(t):
    s = time.perf_counter()
    subprocess.run(cmd[t], cwd=f"{root}/{t}", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - s

for t in ("r", "n"):
    go(t)
# The next run trusts the outputs' stamps (written before it started); the one after is settled.
for t in ("r", "n"):
    go(t); go(t)

counter = [0]
def edit_source(t):
    counter[0] += 1
    with open(f"{root}/{t}/src/t{n-1}/a.c", "w") as f:
        f.write(f"int edited{counter[0]}(void) {{ return {counter[0]}; }}\n")
def edit_file(t):
    counter[0] += 1
    name = "tasks.yml" if t == "r" else "build.ninja"
    with open(f"{root}/{t}/{name}", "a") as f:
        f.write(f"# edit {counter[0]}\n")

print(f"{n} tasks, -j2, {runs} paired runs each; ratio = runner / ninja (lower is better)")
for name, prep in {"noop": None, "one-edit": edit_source, "file-edit": edit_file}.items():
    times = {"r": [], "n": []}
    ratios = []
    for _ in range(runs):
        for t in ("r", "n"):
            if prep: prep(t)
            times[t].append(go(t))
        ratios.append(times["r"][-1] / times["n"][-1])
    r, nj = statistics.median(times["r"]), statistics.median(times["n"])
    print(f"{name} {r*1000:.1f} {nj*1000:.1f} {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})",
          flush=True)
if not keep:
    shutil.rmtree(root)
