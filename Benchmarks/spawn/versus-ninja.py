#!/usr/bin/env python3
"""runner against ninja on spawn-bound graphs of `true`, quiet and with a CPU hog beside them.

usage: Benchmarks/spawn/versus-ninja.py RUNNER [-n 5000] [-j 2] [--runs 7] [--shapes wide,tree,chain]
       [--ninja PATH] [--floor]

For each shape (Benchmarks/peers/gen_graph.py), runner (`-j J tasks.yml all`, no state kept
between runs) and ninja (`-j J all`, its log removed) run in turn, RUNS times each, first on
an otherwise idle machine, then with a CPU hog (a busy loop, one process) running beside them.
Prints each median with its spread and the ratio runner/ninja, and how much the hog moved
the ratio (goal: within 1.1x of the quiet one).

With --floor, a third contestant runs in turn with them: floor.c (compiled here with cc -O2),
the same number of `true` started with posix_spawnp and reaped with waitpid and nothing else,
JOBS at once for wide and tree, one at a time for chain: what any spawner pays on this
machine, so floor/ninja is the least runner/ninja can be.
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))

def once(command, cwd):
    for leftover in (".ninja_log", ".ninja_deps", ".runner"):
        path = os.path.join(cwd, leftover)
        shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else (os.path.exists(path) and os.remove(path))
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runner")
    ap.add_argument("-n", type=int, default=5000)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--shapes", default="wide,tree,chain")
    ap.add_argument("--ninja", default=shutil.which("ninja") or "ninja")
    ap.add_argument("--floor", action="store_true")
    a = ap.parse_args()
    runner = os.path.abspath(a.runner)
    floor = None
    if a.floor:
        floor = os.path.join(tempfile.mkdtemp(prefix="runner-spawn-floor-"), "floor")
        subprocess.run(["cc", "-O2", "-o", floor, os.path.join(HERE, "floor.c")], check=True)
    print(f"{a.n} tasks of `true`, -j{a.j}, median of {a.runs} (spread)")
    for shape in a.shapes.split(","):
        work = tempfile.mkdtemp(prefix=f"runner-spawn-{shape}-")
        subprocess.run([sys.executable, os.path.join(HERE, "..", "peers", "gen_graph.py"), shape, str(a.n), work, "true"],
                       check=True, stdout=subprocess.DEVNULL)
        ratios = {}
        for load in ("quiet", "hog"):
            hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if load == "hog" else None
            try:
                times = {"runner": [], "ninja": [], "floor": []}
                for _ in range(a.runs):
                    times["runner"].append(once([runner, "-j", str(a.j), "tasks.yml", "all"], work))
                    times["ninja"].append(once([os.path.abspath(a.ninja) if os.sep in a.ninja else a.ninja, "-j", str(a.j), "all"], work))
                    if floor:
                        jobs = 1 if shape == "chain" else a.j
                        times["floor"].append(once([floor, str(a.n), str(jobs)], work))
            finally:
                if hog:
                    hog.kill()
                    hog.wait()
            r, n = statistics.median(times["runner"]), statistics.median(times["ninja"])
            ratios[load] = r / n
            print(f"  {shape:5s} {load:5s} runner {r:6.3f} s ({min(times['runner']):.3f}-{max(times['runner']):.3f})"
                  f"  ninja {n:6.3f} s ({min(times['ninja']):.3f}-{max(times['ninja']):.3f})  runner/ninja {r / n:5.2f}")
            if floor:
                f = statistics.median(times["floor"])
                print(f"  {shape:5s} {load:5s} floor  {f:6.3f} s ({min(times['floor']):.3f}-{max(times['floor']):.3f})"
                      f"  floor/ninja {f / n:5.2f}  runner/floor {r / f:5.2f}")
        print(f"  {shape:5s} the hog moved runner/ninja by {ratios['hog'] / ratios['quiet']:.2f}x")
        shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    main()
