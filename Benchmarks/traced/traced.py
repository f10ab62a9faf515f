#!/usr/bin/env python3
"""Issue 35's figures: what tracing (`sources: auto`) costs on a real C build.

Builds brotli's C library (its PyPI sdist: 33 .c files, one task each, plus `ar`) with
runner, twice over: once with declared sources (each file and every header by glob), once
with `sources: auto`. Prints, median of RUNS paired runs at -j2: the clean build's wall time
each way and their ratio (goal: traced <= 1.05x), and the no-op's (goal: <= 1.1x). Then the
completeness check: for one compile, the project files runner recorded against those
`strace -f` saw it open.

    python3 Benchmarks/traced/traced.py RUNNER [RUNS] [--sdist DIR]
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def fetch(directory):
    """brotli's sdist, unpacked in `directory`; its root."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", ":all:", "--no-deps", "brotli==1.2.1",
         "-d", directory], check=True)
    archive = next(name for name in os.listdir(directory) if name.endswith(".tar.gz"))
    subprocess.run(["tar", "xzf", archive], cwd=directory, check=True)
    return os.path.join(directory, archive[: -len(".tar.gz")])


def sources(root):
    found = []
    for base, _, files in os.walk(os.path.join(root, "c")):
        for name in files:
            path = os.path.relpath(os.path.join(base, name), root)
            if name.endswith(".c") and not path.startswith(("c/tools", "c/fuzz")):
                found.append(path)
    return sorted(found)


def task_file(files, auto):
    lines = ["tasks:"]
    objects = []
    for path in files:
        name = path[2:-2].replace("/", "_")
        obj = f"out/{name}.o"
        objects.append(obj)
        lines += [
            f"  {name}:",
            f"    run: cc -O2 -Ic/include -c {path} -o {obj}",
            "    sources: auto" if auto else f'    sources: [{path}, "c/**/*.h"]',
            f"    outputs: [{obj}]",
        ]
    lines += [
        "  lib:",
        f"    deps: [{', '.join(path[2:-2].replace('/', '_') for path in files)}]",
        "    run: ar rcs out/libbrotli.a out/*.o",
        "    sources: auto" if auto else "    sources: [\"out/*.o\"]",
        "    outputs: [out/libbrotli.a]",
    ]
    return "\n".join(lines) + "\n"


def timed(runner, directory, clean):
    if clean:
        for name in ("out", ".runner"):
            shutil.rmtree(os.path.join(directory, name), ignore_errors=True)
        os.makedirs(os.path.join(directory, "out"))
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root")}
    start = time.perf_counter()
    done = subprocess.run([runner, "-j2", "lib"], cwd=directory, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"runner failed in {directory}: {done.stderr}")
    return elapsed


def recorded(directory, task):
    """The project files the state holds for `task` (its I lines)."""
    found, current = set(), None
    with open(os.path.join(directory, ".runner/state"), encoding="utf-8") as state:
        for line in state:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "T":
                current = fields[1]
            elif fields[0] == "I" and current == task and fields[2] != "-" and not fields[1].endswith("/"):
                found.add(os.path.normpath(fields[1]))
    return found


def straced(directory, command):
    """The project files `command` opened (and did not fail to), per strace -f."""
    log = os.path.join(directory, "strace.log")
    subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat,open,execve", "-o", log] + command, cwd=directory,
                   check=True)
    found = set()
    with open(log, encoding="utf-8", errors="replace") as text:
        for line in text:
            match = re.search(r'(?:openat\(AT_FDCWD, |open\(|execve\()"([^"]+)"', line)
            if not match or "= -1" in line:
                continue
            path = os.path.normpath(os.path.join(directory, match.group(1)))
            if path.startswith(directory + "/") and os.path.isfile(path) and "/out/" not in path:
                found.add(os.path.relpath(path, directory))
    os.remove(log)
    return found


def main():
    arguments = [word for word in sys.argv[1:] if not word.startswith("--")]
    runner = os.path.abspath(arguments[0])
    runs = int(arguments[1]) if len(arguments) > 1 else 5
    work = tempfile.mkdtemp(prefix="runner-traced-")
    given = sys.argv.index("--sdist") if "--sdist" in sys.argv else None
    root = sys.argv[given + 1] if given else fetch(work)
    files = sources(root)
    projects = {}
    for kind in ("declared", "auto"):
        directory = os.path.join(work, kind)
        shutil.copytree(os.path.join(root, "c"), os.path.join(directory, "c"))
        with open(os.path.join(directory, "tasks.yml"), "w", encoding="utf-8") as out:
            out.write(task_file(files, kind == "auto"))
        projects[kind] = directory
    clean = {"declared": [], "auto": []}
    noop = {"declared": [], "auto": []}
    for run in range(runs):
        # Alternating, so a busy moment costs both alike.
        for kind in (("declared", "auto") if run % 2 == 0 else ("auto", "declared")):
            clean[kind].append(timed(runner, projects[kind], clean=True))
            timed(runner, projects[kind], clean=False)  # records the no-op
            noop[kind].append(min(timed(runner, projects[kind], clean=False) for _ in range(3)))
    print(f"brotli {os.path.basename(root)}: {len(files)} compiles + ar, -j2, median of {runs}")
    for label, table in (("clean build", clean), ("no-op", noop)):
        declared, auto = statistics.median(table["declared"]), statistics.median(table["auto"])
        ratios = [a / d for a, d in zip(table["auto"], table["declared"])]
        print(f"  {label}: declared {declared * 1000:.0f} ms, auto {auto * 1000:.0f} ms, "
              f"ratio {auto / declared:.3f} (pairs {min(ratios):.3f}-{max(ratios):.3f})")
    # Completeness: one compile, recorded against strace.
    target = "enc_encode"
    command = ["cc", "-O2", "-Ic/include", "-c", "c/enc/encode.c", "-o", "out/check.o"]
    seen = straced(projects["auto"], command)
    kept = recorded(projects["auto"], target)
    print(f"  completeness ({target}): strace saw {len(seen)} project files, runner recorded {len(kept)}; "
          f"missing {sorted(seen - kept)}, extra {sorted(kept - seen)}")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
