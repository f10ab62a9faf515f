#!/usr/bin/env python3
"""runner -n against ninja -n on one large generated graph, in turn: time and peak memory.

usage: Benchmarks/scale/versus-ninja.py RUNNER [-n 1000000] [--shape tree] [--runs 5]
       [--ninja PATH] [--heaptrack]

The graph comes from Benchmarks/peers/gen_graph.py (tree: layers of 50, two deps a task).
Each run is `runner --no-cache -n all` (no state kept: `.runner` removed first) and then
`ninja -n all` (its log removed), timed with GNU time (wall seconds, peak RSS). Prints each
median with its spread, the ratio runner/ninja, and runner's peak RSS in bytes a task (the
whole process: the binary, the libraries and the heap). With --heaptrack, one more run of
runner under heaptrack gives the heap's peak in bytes a task.
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

def clean(cwd):
    for leftover in (".ninja_log", ".ninja_deps", ".runner"):
        path = os.path.join(cwd, leftover)
        if os.path.isdir(path):
            shutil.rmtree(path, ignore_errors=True)
        elif os.path.exists(path):
            os.remove(path)

def timed(command, cwd):
    """(seconds, peak RSS in bytes) of one run, through GNU time."""
    clean(cwd)
    with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
        subprocess.run(["/usr/bin/time", "-o", out.name, "-f", "%e %M", *command], cwd=cwd, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds, kilobytes = out.read().split()[-2:]
    return float(seconds), int(kilobytes) * 1024

def heap_peak(command, cwd):
    """The heap's peak in bytes (heaptrack_print's "peak heap memory consumption")."""
    clean(cwd)
    with tempfile.TemporaryDirectory() as scratch:
        stem = os.path.join(scratch, "heap")
        subprocess.run(["heaptrack", "-o", stem, *command], cwd=cwd, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        data = [f for f in os.listdir(scratch) if f.startswith("heap")][0]
        report = subprocess.run(["heaptrack_print", os.path.join(scratch, data)], check=True,
                                capture_output=True, text=True).stdout
    for line in report.splitlines():
        if line.startswith("peak heap memory consumption:"):
            value = line.split(":")[1].strip()
            scale = {"K": 1e3, "M": 1e6, "G": 1e9}.get(value[-1], 1)
            return float(value.rstrip("KMGB")) * scale
    raise SystemExit("heaptrack_print gave no peak")

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runner")
    ap.add_argument("-n", type=int, default=1_000_000)
    ap.add_argument("--shape", default="tree")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ninja", default=shutil.which("ninja") or "ninja")
    ap.add_argument("--heaptrack", action="store_true")
    a = ap.parse_args()
    runner = os.path.abspath(a.runner)
    ninja = os.path.abspath(a.ninja) if os.sep in a.ninja else a.ninja
    work = tempfile.mkdtemp(prefix=f"runner-scale-{a.shape}-")
    try:
        subprocess.run([sys.executable, os.path.join(HERE, "..", "peers", "gen_graph.py"), a.shape, str(a.n), work],
                       check=True, stdout=subprocess.DEVNULL)
        runs = {"runner": [], "ninja": []}
        for _ in range(a.runs):
            runs["runner"].append(timed([runner, "--no-cache", "-n", "all"], work))
            runs["ninja"].append(timed([ninja, "-n", "all"], work))
        print(f"{a.shape} of {a.n} tasks, -n, median of {a.runs} (spread), in turn")
        medians = {}
        for name, results in runs.items():
            seconds = [r[0] for r in results]
            memory = [r[1] for r in results]
            medians[name] = (statistics.median(seconds), statistics.median(memory))
            print(f"  {name:6s} {medians[name][0]:6.2f} s ({min(seconds):.2f}-{max(seconds):.2f})"
                  f"  peak RSS {medians[name][1] / 2**20:6.1f} MiB ({min(memory) / 2**20:.1f}-{max(memory) / 2**20:.1f})"
                  f"  {medians[name][1] / a.n:5.0f} bytes a task")
        ratios = [r[0] / n[0] for r, n in zip(runs["runner"], runs["ninja"])]
        print(f"  runner/ninja time: median of the pairs {statistics.median(ratios):.2f}"
              f" ({min(ratios):.2f}-{max(ratios):.2f}); memory {medians['runner'][1] / medians['ninja'][1]:.2f}")
        if a.heaptrack:
            peak = heap_peak([runner, "--no-cache", "-n", "all"], work)
            print(f"  runner's heap at its peak (heaptrack): {peak / 2**20:.1f} MiB, {peak / a.n:.0f} bytes a task")
    finally:
        shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    main()
