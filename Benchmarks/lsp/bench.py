#!/usr/bin/env python3
"""How fast `runner lsp` answers, on generated task files.

    python3 Benchmarks/lsp/bench.py RUNNER [--runs 7]

Two figures (issue 37), each the median of --runs with the spread:
  completion  a 1 000-task file that includes a 100-task file: the time from sending a
              completion request (task names in `deps`) to its response
  re-check    a 10 000-task file: the time from a didChange (one dependency renamed, then
              back) to the publishDiagnostics that follows, less the server's 150 ms debounce,
              and with it
Speaks the protocol itself (Content-Length frames over pipes): only the standard library.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

DEBOUNCE = 0.150


class Client:
    def __init__(self, runner):
        self.process = subprocess.Popen([runner, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 0

    def send(self, message):
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self):
        length = None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(self.process.stdout.read(length))

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == self.next_id:
                return message

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, method):
        while True:
            message = self.receive()
            if message.get("method") == method:
                return message

    def close(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.process.wait(timeout=10)


def tasks(count, prefix=""):
    lines = ["tasks:"]
    for index in range(count):
        lines.append(f"  {prefix}t{index}:")
        lines.append(f"    desc: task {index}")
        if index:
            lines.append(f"    deps: [{prefix}t{index - 1}]")
        lines.append(f"    run: echo {index}")
    return "\n".join(lines) + "\n"


def median(values):
    return "%.1f ms (%.1f–%.1f)" % (statistics.median(values) * 1e3, min(values) * 1e3, max(values) * 1e3)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("runner")
    parser.add_argument("--runs", type=int, default=7)
    options = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="runner-lsp-bench-")

    with open(os.path.join(directory, "lib.yml"), "w") as out:
        out.write(tasks(100, "l"))
    small = "includes:\n  lib: lib.yml\n" + tasks(1000)
    small_path = os.path.join(directory, "small.yml")
    with open(small_path, "w") as out:
        out.write(small)
    large = tasks(10000)
    large_path = os.path.join(directory, "large.yml")
    with open(large_path, "w") as out:
        out.write(large)

    client = Client(options.runner)
    client.request("initialize", {"processId": os.getpid(), "capabilities": {}})
    client.notify("initialized", {})

    uri = "file://" + small_path
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": small}})
    client.wait("textDocument/publishDiagnostics")
    line = small.splitlines().index("    deps: [t499]")
    completions = []
    for _ in range(options.runs):
        start = time.perf_counter()
        answer = client.request(
            "textDocument/completion",
            {"textDocument": {"uri": uri}, "position": {"line": line, "character": len("    deps: [t")}},
        )
        completions.append(time.perf_counter() - start)
        assert len(answer["result"]) >= 1100, len(answer["result"])

    uri = "file://" + large_path
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": large}})
    client.wait("textDocument/publishDiagnostics")
    checks = []
    for run in range(options.runs):
        text = large.replace("deps: [t4999]", "deps: [t4998]") if run % 2 == 0 else large
        start = time.perf_counter()
        client.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": run + 2}, "contentChanges": [{"text": text}]},
        )
        client.wait("textDocument/publishDiagnostics")
        checks.append(time.perf_counter() - start)
    client.close()

    print("| figure | goal | median (min–max) of %d |" % options.runs)
    print("|---|---|---|")
    print("| completion, 1 000 tasks + a 100-task include | ≤ 50 ms | %s |" % median(completions))
    print("| re-check after an edit, 10 000 tasks, less the 150 ms debounce | ≤ 300 ms | %s |"
          % median([c - DEBOUNCE for c in checks]))
    print("| the same, with the debounce | | %s |" % median(checks))


if __name__ == "__main__":
    sys.exit(main())
