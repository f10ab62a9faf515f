#!/usr/bin/env python3
"""Where a spawn-bound chain's time goes, per task: runner, ninja and the floor side by side.

usage: Benchmarks/spawn/phases.py RUNNER [-n 1000] [--ninja PATH]

A chain of N `true` (Benchmarks/peers/gen_graph.py) runs once under `perf record` for each
spawner: runner (`-j2 tasks.yml all`), ninja (`-j2 all`) and floor.c (posix_spawnp and
waitpid, one at a time). The kernel's tracepoints mark each child's life:

  clone>fork   the spawner enters clone3 .. the kernel has made the child (copy_process)
  fork>exec    .. the child's exec succeeded (its setup before exec, and exec itself)
  exec>exit    .. the child exits (the program: `true` and its dynamic loader)
  exit>clone   .. the spawner enters clone3 for the next task (the child's teardown, the
               spawner waking, and all the spawner does between two tasks)
  cycle        one task to the next

In a chain every phase is on the critical path, so the medians add up to the cycle, and the
difference between spawners shows which phase holds it. Tracing adds about a microsecond a
system call: compare spawners within one run, not with wall times measured without perf.
Needs `perf` and access to the sched and raw_syscalls tracepoints (root, or
kernel.perf_event_paranoid <= -1).
"""
import argparse, os, re, shutil, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CLONE3 = 435
EVENTS = ["sched:sched_process_fork", "sched:sched_process_exec", "sched:sched_process_exit",
          "raw_syscalls:sys_enter"]
LINE = re.compile(r"\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)")


def record(command, cwd, data):
    arguments = ["perf", "record", "-q", "-o", data]
    for event in EVENTS:
        arguments += ["-e", event]
        if event == "raw_syscalls:sys_enter":
            arguments += ["--filter", f"id == {CLONE3}"]
    result = subprocess.run(arguments + command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit(f"perf record failed ({result.returncode}): {result.stderr.strip()}")


def phases(data):
    script = subprocess.run(["perf", "script", "-i", data], capture_output=True, text=True, check=True).stdout
    found = {name: [] for name in ("clone>fork", "fork>exec", "exec>exit", "exit>clone", "cycle")}
    children, last_clone, last_exit = {}, None, None
    for line in script.splitlines():
        match = LINE.match(line)
        if not match:
            continue
        comm, tid, _, stamp, event, rest = match.groups()
        at = float(stamp) * 1e6
        if event == "raw_syscalls:sys_enter" and comm != "true":
            if last_exit is not None:
                found["exit>clone"].append(at - last_exit)
                last_exit = None
            if last_clone is not None:
                found["cycle"].append(at - last_clone)
            last_clone = at
        elif event == "sched:sched_process_fork":
            child = int(re.search(r"child_pid=(\d+)", rest).group(1))
            if last_clone is not None:
                found["clone>fork"].append(at - last_clone)
            children[child] = {"fork": at}
        elif event == "sched:sched_process_exec" and int(tid) in children:
            child = children[int(tid)]
            child["exec"] = at
            found["fork>exec"].append(at - child["fork"])
        elif event == "sched:sched_process_exit" and "exec" in children.get(int(tid), {}):
            found["exec>exit"].append(at - children[int(tid)]["exec"])
            last_exit = at
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("runner")
    parser.add_argument("-n", type=int, default=1000)
    parser.add_argument("--ninja", default=shutil.which("ninja") or "ninja")
    options = parser.parse_args()
    if not shutil.which("perf"):
        sys.exit("phases.py needs perf")
    work = tempfile.mkdtemp(prefix="runner-phases-")
    try:
        subprocess.run([sys.executable, os.path.join(HERE, "..", "peers", "gen_graph.py"), "chain", str(options.n), work,
                        "true"], check=True, stdout=subprocess.DEVNULL)
        floor = os.path.join(work, "floor")
        subprocess.run(["cc", "-O2", "-o", floor, os.path.join(HERE, "floor.c")], check=True)
        spawners = {
            "runner": [os.path.abspath(options.runner), "-j2", "tasks.yml", "all"],
            "ninja": [os.path.abspath(options.ninja) if os.sep in options.ninja else options.ninja, "-j2", "all"],
            "floor": [floor, str(options.n), "1"],
        }
        results = {}
        for name, command in spawners.items():
            data = os.path.join(work, f"{name}.data")
            record(command, work, data)
            results[name] = phases(data)
            if len(results[name]["exec>exit"]) < options.n * 0.9:
                sys.exit(f"{name}: only {len(results[name]['exec>exit'])} of {options.n} children seen")
        print(f"a chain of {options.n} `true`, median microseconds a task (perf tracepoints)")
        print(f"{'phase':12s}" + "".join(f"{name:>10s}" for name in spawners))
        for phase in ("clone>fork", "fork>exec", "exec>exit", "exit>clone", "cycle"):
            print(f"{phase:12s}" + "".join(f"{statistics.median(results[name][phase]):10.0f}" for name in spawners))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
