#!/usr/bin/env python3
"""Storing and restoring one big output in the local cache, beside `cp` of the same file.

usage: Benchmarks/cache/bench.py RUNNER [--mib 300] [--runs 5] [--dir DIR]...

For each DIR (default: a directory under $TMPDIR; give one on XFS or Btrfs too, to see
reflinks), a task writes MIB of random bytes to out.bin (`cat` of a file made once); then, alternating, median of RUNS
with the spread:
  - run:      the task with --no-cache (writing the file, hashing it for the record)
  - store:    the task, its output stored in an empty cache
  - restore:  the output removed, restored from the cache
  - cp:       `cp out.bin copy.bin` (what a copy of the file costs here)
and, for one store and one restore under strace, how many bytes of out.bin and of the cache
entry (each also while it is written under a temporary name) runner read: the goal is one
reading of the output when it is stored, one of the entry (or, with reflinks, of the restored
file) when it is restored.
Peak RSS of store and restore from GNU time.
"""
import argparse, os, re, shutil, statistics, subprocess, sys, tempfile, time

def timed(command, cwd, before=None):
    if before: before()
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start

def bytes_read(command, cwd, names):
    """Bytes runner's processes read from files whose path ends with one of `names`."""
    log = os.path.join(cwd, "strace.log")
    subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat,read,pread64,close", "-o", log, *command],
                   cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    fds, total = {}, {n: 0 for n in names}
    for line in open(log, errors="replace"):
        m = re.match(r"(\d+)\s+openat\(.*?\"([^\"]+)\".*\)\s+=\s+(\d+)", line)
        if m:
            pid, path, fd = m.groups()
            # The file itself or one being written in its place (`.out.bin.runner-tmp-…`).
            base = os.path.basename(path).lstrip(".").split(".runner-tmp")[0]
            for n in names:
                if base == n or (n == "entry" and "/cache/" in path):
                    fds[(pid, fd)] = n
            continue
        m = re.match(r"(\d+)\s+(?:read|pread64)\((\d+),.*\)\s+=\s+(\d+)", line)
        if m and (m.group(1), m.group(2)) in fds:
            total[fds[(m.group(1), m.group(2))]] += int(m.group(3))
        m = re.match(r"(\d+)\s+close\((\d+)\)", line)
        if m: fds.pop((m.group(1), m.group(2)), None)
    os.remove(log)
    return total

def peak(command, cwd):
    done = subprocess.run(["/usr/bin/time", "-f", "%M", *command], cwd=cwd, check=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return int(done.stderr.strip().splitlines()[-1]) / 1024

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runner")
    ap.add_argument("--mib", type=int, default=300)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dir", action="append", default=[])
    a = ap.parse_args()
    runner = os.path.abspath(a.runner)
    for parent in a.dir or [tempfile.gettempdir()]:
        work = tempfile.mkdtemp(prefix="runner-cache-bench-", dir=parent)
        fs = subprocess.run(["stat", "-f", "-c", "%T", work], capture_output=True, text=True).stdout.strip()
        # The task copies random bytes made once (`cat`, so no reflink of its own).
        subprocess.run(["sh", "-c", f"head -c {a.mib << 20} /dev/urandom > source.bin"], cwd=work, check=True)
        with open(os.path.join(work, "tasks.yml"), "w") as f:
            f.write("tasks:\n  big:\n    run: cat source.bin > out.bin\n"
                    "    sources: [tasks.yml]\n    outputs: [out.bin]\n")
        cache = os.path.join(work, ".runner")
        drop = lambda: shutil.rmtree(cache, ignore_errors=True)
        def unlink(*names):
            def go():
                for n in names:
                    try: os.remove(os.path.join(work, n))
                    except FileNotFoundError: pass
            return go
        runs = {k: [] for k in ("run", "store", "restore", "cp")}
        for _ in range(a.runs):
            runs["run"].append(timed([runner, "--no-cache", "big"], work, drop))
            runs["store"].append(timed([runner, "big"], work, drop))
            runs["restore"].append(timed([runner, "big"], work, unlink("out.bin")))
            runs["cp"].append(timed(["cp", "out.bin", "copy.bin"], work, unlink("copy.bin")))
        print(f"{a.mib} MiB output on {fs} ({work}), median of {a.runs} (spread):")
        for k, v in runs.items():
            print(f"  {k:8s} {statistics.median(v):6.3f} s ({min(v):.3f}-{max(v):.3f})")
        drop()
        stored = bytes_read([runner, "big"], work, ["out.bin", "entry"])
        unlink("out.bin")()
        restored = bytes_read([runner, "big"], work, ["out.bin", "entry"])
        mib = lambda n: f"{n / (1 << 20):.0f} MiB"
        print(f"  read while storing: out.bin {mib(stored['out.bin'])}, entry {mib(stored['entry'])}; "
              f"restoring: entry {mib(restored['entry'])}, out.bin {mib(restored['out.bin'])}")
        drop()
        store_rss = peak([runner, "big"], work)
        unlink("out.bin")()
        restore_rss = peak([runner, "big"], work)
        print(f"  peak RSS: store {store_rss:.0f} MiB, restore {restore_rss:.0f} MiB")
        shutil.rmtree(work)

if __name__ == "__main__":
    main()
