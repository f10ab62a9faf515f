#!/usr/bin/env python3
"""Writes runner(1) in roff from the binary's own description of its command line
(`runner --experimental-dump-help`, swift-argument-parser's JSON), so the man page and
`--help` cannot disagree.

    manpage.py RUNNER VERSION > runner.1
"""
import json
import subprocess
import sys

runner, version = sys.argv[1:3]
info = json.loads(subprocess.run([runner, "--experimental-dump-help"], check=True, capture_output=True).stdout)
command = info["command"]


def roff(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + line) if line.startswith((".", "'")) else line for line in text.split("\n"))


def flag(name):
    return ("-" if name["kind"] in ("short", "longWithSingleDash") else "--") + name["name"]


out = [
    f'.TH RUNNER 1 "" "runner {version}" "User Commands"',
    ".SH NAME",
    "runner \\- " + roff(command["abstract"]),
    ".SH SYNOPSIS",
    ".B runner",
    "[\\fIFILE\\fR] [\\fITARGET\\fR | \\fINAME\\fR=\\fIvalue\\fR]... [\\fIoptions\\fR] [\\-\\- \\fIARGS\\fR...]",
    ".SH DESCRIPTION",
]
for paragraph in command.get("discussion", "").split("\n\n"):
    out += [".PP", roff(paragraph)]
out.append(".SH OPTIONS")
for argument in command["arguments"]:
    if not argument.get("shouldDisplay", True):
        continue
    if argument["kind"] == "positional":
        head = f"\\fI{argument['valueName']}\\fR..."
    else:
        names = ", ".join(roff(flag(name)) for name in argument.get("names", []))
        value = f" \\fI<{argument['valueName']}>\\fR" if argument["kind"] == "option" else ""
        head = f"\\fB{names}\\fR{value}"
    out += [".TP", head, roff(argument.get("abstract", ""))]
out += [
    ".SH EXIT STATUS",
    "0 success; 1 a task failed; 2 an invalid task file or usage; 128+N stopped by signal N "
    "(130 SIGINT, 143 SIGTERM).",
    ".SH FILES",
    "\\fItasks.yml\\fR (or \\fItasks.yaml\\fR) in the current directory or the nearest one above; "
    "\\fI.runner/\\fR beside it holds the incremental state and the local cache; "
    "\\fI../share/runner/tasks.schema.json\\fR beside the binary's directory is the task file's JSON Schema.",
    ".SH SEE ALSO",
    "The guide and the task file's reference: \\fI/usr/share/doc/runner/README.md.gz\\fR and "
    "\\fI/usr/share/doc/runner/docs/\\fR (from the .deb), or \\fIshare/doc/runner/\\fR in the tarball "
    "(\\fIdocs/tasks-file.md\\fR: every key; \\fIdocs/projects.md\\fR: params, includes, calls; "
    "\\fIdocs/caching.md\\fR, \\fIdocs/remote.md\\fR, \\fIdocs/import.md\\fR).",
]
print("\n".join(out))
