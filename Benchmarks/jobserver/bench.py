#!/usr/bin/env python3
"""Wall time, peak memory and peak compilers of a multi-project C build (projects.sh) at -j2:
runner with its jobserver, runner with each tool at -j$(nproc) and no jobserver, and make's own
jobserver (a recursive make) as the reference; and runner's jobserver at -j4 (as many jobs as
the tools without it run on two cores). Alternating, median of RUNS with the spread.

    python3 Benchmarks/jobserver/bench.py RUNNER [RUNS] [DIR]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
runner = os.path.abspath(sys.argv[1])
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
work = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="runner-jobserver-bench-")
subprocess.run(["bash", os.path.join(here, "projects.sh"), work], check=True)

configs = {
    "runner -j2, jobserver": [runner, "-j2", "--no-cache", "all"],
    "runner -j2, tools -j$(nproc), none": [runner, "-j2", "--no-cache", "-f", "no-jobserver.yml", "all"],
    "make -j2 (make's jobserver)": ["make", "-s", "-j2", "all"],
    "runner -j4, jobserver": [runner, "-j4", "--no-cache", "all"],
}


def clean():
    for project in ["brotli-dec", "brotli-enc", "zstd", "tool"]:
        path = os.path.join(work, project)
        shutil.rmtree(os.path.join(path, "obj"), ignore_errors=True)
        for name in os.listdir(path):
            if name.endswith(".a") or name in ("brotli", ".ninja_log", ".ninja_deps"):
                os.remove(os.path.join(path, name))
    shutil.rmtree(os.path.join(work, ".runner"), ignore_errors=True)


def tree(root):
    """The pids under root, by walking /proc's parent links."""
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(name))
        except OSError:
            continue
    found, work_list = [], [root]
    while work_list:
        pid = work_list.pop()
        found.append(pid)
        work_list.extend(children.get(pid, []))
    return found


def sample(pids):
    rss, compilers = 0, 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm") as statm:
                rss += int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            with open(f"/proc/{pid}/comm") as comm:
                compilers += comm.read().strip() == "cc1"
        except OSError:
            continue
    return rss, compilers


def measure(command):
    clean()
    environment = dict(os.environ, NO_COLOR="1")
    environment.pop("MAKEFLAGS", None)
    start = time.monotonic()
    process = subprocess.Popen(command, cwd=work, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak_rss, peak_cc1 = 0, 0
    while process.poll() is None:
        rss, compilers = sample(tree(process.pid))
        peak_rss, peak_cc1 = max(peak_rss, rss), max(peak_cc1, compilers)
        time.sleep(0.02)
    wall = time.monotonic() - start
    error = process.stderr.read().decode()
    if process.returncode != 0:
        sys.exit(f"{command} failed ({process.returncode}): {error}")
    return wall, peak_rss / 2**20, peak_cc1


results = {name: [] for name in configs}
for _ in range(runs):
    for name, command in configs.items():
        results[name].append(measure(command))

print(f"{os.cpu_count()} CPUs, {runs} runs each, alternating")
print(f"{'':40} {'wall s (median, spread)':>26} {'peak RSS MiB':>22} {'peak cc1':>9}")
for name, samples in results.items():
    walls = sorted(s[0] for s in samples)
    rss = sorted(s[1] for s in samples)
    cc1 = max(s[2] for s in samples)
    print(
        f"{name:40} {statistics.median(walls):8.2f} ({walls[0]:.2f}–{walls[-1]:.2f}) "
        f"{statistics.median(rss):10.0f} ({rss[0]:.0f}–{rss[-1]:.0f}) {cc1:9}"
    )
