#!/usr/bin/env python3
"""Measure `runner import` against the integration tests of just and go-task.

    python3 Benchmarks/import/suites.py RUNNER [options]

For every case taken from the tools' own test suites, the real tool runs the
file, and runner runs what `runner import` made of it, each in a fresh copy of
the case directory with HOME set to a temporary directory. The two are compared
on the lines the commands print on stdout (runner's come from its --events log,
so runner's own lines never mix in) as multisets, and on success (exit 0) versus
failure. Each case is then:

  same          same stdout lines (multiset) and both succeed or both fail
  reported      different, and `runner import` exited 3 or 2 (it said so)
  silent        different, and `runner import` exited 0 (it claimed exact)
  tool-rejects  the tool itself refuses the file (just --dump / task --list-all
                fails): what runner import did is recorded (2 = refused, good)

Cases:
  go-task  testdata/<dir>/Taskfile.y(a)ml, one case per task at the top level
           of the file (`task NAME` against `runner NAME`); wildcard names are
           skipped. Included Taskfiles are imported too, as the import report
           asks (`runner import X -o Y`).
  just     tests/*.rs: each `Test::new()` chain whose .justfile()/.write()/
           .arg()/.args()/.env()/.stdin()/.current_dir()/.create_dir() arguments
           are all string literals; chains with options (an argument starting
           with '-') or non-literal arguments are skipped. Recipe arguments are
           passed to runner as NAME=value (just's recipe parameters come from
           `just --dump --dump-format json`), variadic ones after `--`.

Writes the summary table on stdout and, in --out (default: this directory),
silent.txt (each silent case, grouped by a guessed cause) and results.json.
Only the standard library is used.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
VENV_BIN = os.path.join(REPO, ".build", "ci-venv", "bin")
MIRRORS = "/work/.mirror"
TIMEOUT = 10.0

# ---------------------------------------------------------------- processes


def run(argv, cwd, env, stdin_text="", timeout=TIMEOUT):
    """Run argv in its own process group; on timeout kill that group."""
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
    except OSError as e:
        return {"rc": 127, "out": "", "err": str(e), "timeout": False, "secs": 0.0}
    timed_out = False
    try:
        out, err = p.communicate(stdin_text.encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            out, err = p.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            out, err = b"", b""
    return {"rc": p.returncode if not timed_out else -9,
            "out": out.decode("utf-8", "replace"),
            "err": err.decode("utf-8", "replace"),
            "timeout": timed_out, "secs": time.monotonic() - t0}


def base_env(home, extra=None):
    env = {
        "PATH": VENV_BIN + os.pathsep + "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": home,
        "USER": os.environ.get("USER", "root"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "TMPDIR": home,
        "XDG_CACHE_HOME": os.path.join(home, ".cache"),
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
    }
    if extra:
        env.update(extra)
    return env


def copytree(src, dst):
    shutil.copytree(src, dst, symlinks=True)


def lines(text):
    if text == "":
        return []
    return text.replace("\r\n", "\n").split("\n")[:-1] if text.endswith("\n") else text.replace("\r\n", "\n").split("\n")


def run_runner(runner, cwd, args, env, stdin_text, scratch):
    """runner ARGS with an event log; stdout lines of tasks from the log."""
    ev = os.path.join(scratch, "events.%d.jsonl" % len(os.listdir(scratch)))
    r = run([runner, "--ci", "none", "--events", ev] + args, cwd, env, stdin_text)
    out, err = [], []
    try:
        with open(ev, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    o = json.loads(line)
                except ValueError:
                    continue
                if o.get("event") == "output":
                    (out if o.get("stream") == "stdout" else err).append(o.get("line", ""))
    except OSError:
        pass
    r["lines"] = out
    r["err_lines"] = err
    return r


# ---------------------------------------------------------------- sources


def tool_version(tool):
    r = run([tool, "--version"], "/", os.environ.copy())
    m = re.search(r"(\d+\.\d+\.\d+)", r["out"] + r["err"])
    return m.group(1) if m else "?"


def extract(git_dir, want_tags, paths, dest):
    """git archive the first tag of want_tags that exists (else HEAD)."""
    tags = subprocess.run(["git", "--git-dir", git_dir, "tag"], capture_output=True,
                          text=True).stdout.split()
    rev = next((t for t in want_tags if t in tags), "HEAD")
    desc = subprocess.run(["git", "--git-dir", git_dir, "log", "-1", "--format=%h %cs", rev],
                          capture_output=True, text=True).stdout.strip()
    os.makedirs(dest, exist_ok=True)
    a = subprocess.Popen(["git", "--git-dir", git_dir, "archive", rev] + paths,
                         stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", dest], stdin=a.stdout, check=True)
    a.wait()
    return "%s (%s)" % (rev, desc)


# ---------------------------------------------------------------- go-task


def yaml_task_names(text):
    """Top-level keys of `tasks:` in a block-style YAML file."""
    names, inside, indent = [], False, None
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            inside = re.match(r"^tasks\s*:\s*(#.*)?$", line) is not None
            indent = None
            continue
        if not inside:
            continue
        ind = len(line) - len(line.lstrip())
        if indent is None:
            indent = ind
        if ind != indent:
            continue
        m = re.match(r"""^\s*(?:"([^"]*)"|'([^']*)'|([^\s:#'"][^:#]*?))\s*:(\s|$)""", line)
        if m:
            names.append(next(g for g in m.groups()[:3] if g is not None))
    return names


def task_cases(root):
    cases = []
    td = os.path.join(root, "testdata")
    for dirpath, dirnames, filenames in os.walk(td):
        dirnames.sort()
        for fn in ("Taskfile.yml", "Taskfile.yaml"):
            if fn in filenames:
                rel = os.path.relpath(dirpath, td)
                top = rel.split(os.sep)[0]
                cases.append({"tool": "task", "dir": rel, "top": top, "file": fn,
                              "src": os.path.join(td, top)})
                break
    return cases


def follow_includes(runner, cwd, report, env, done, depth=0):
    """Run the `runner import X -o Y` lines the report asks for."""
    rcs = []
    if depth > 3:
        return rcs
    for m in re.finditer(r"import the included file too: runner import (\S+) -o (\S+)", report):
        src, out = m.group(1), m.group(2)
        if "{{" in src or (src, out) in done:
            continue
        # `~/…` as the shell the report's line is meant for reads it
        src, out = [os.path.join(env.get("HOME", "~"), p[2:]) if p.startswith("~/") else p for p in (src, out)]
        done.add((src, out))
        if not os.path.exists(os.path.join(cwd, src)) or os.path.exists(os.path.join(cwd, out)):
            continue
        r = run([runner, "import", src, "-o", out], cwd, env)
        rcs.append((src, r["rc"]))
        sub = os.path.dirname(src)
        rcs += follow_includes(runner, os.path.join(cwd, sub) if sub else cwd,
                               r["err"], env, done, depth + 1)
    return rcs


def do_task_case(case, cfg):
    """One directory: import once, then every task on fresh copies."""
    results = []
    with tempfile.TemporaryDirectory(prefix="suite-task-") as tmp:
        home = os.path.join(tmp, "home")
        os.makedirs(home)
        env = base_env(home)
        with open(os.path.join(os.path.dirname(case["src"]), case["dir"], case["file"]),
                  encoding="utf-8", errors="replace") as f:
            text = f.read()
        sub = case["dir"][len(case["top"]):].lstrip(os.sep)
        # the tool's view of the file
        probe = os.path.join(tmp, "probe")
        copytree(case["src"], probe)
        lst = run([cfg.task, "--list-all", "--json"], os.path.join(probe, sub), env)
        # the import, on its own copy (kept as the template for runner's runs);
        # each run (tool or runner) happens in the same path, tmp/w, so that
        # printed paths compare equal
        tmpl = os.path.join(tmp, "imported")
        wdir = os.path.join(tmp, "w")
        copytree(case["src"], wdir)
        icwd = os.path.join(wdir, sub)
        imp = run([cfg.runner, "import", case["file"]], icwd, env)
        inc = follow_includes(cfg.runner, icwd, imp["err"], env, set())
        tasks_yml = ""
        p = os.path.join(icwd, "tasks.yml")
        if os.path.exists(p):
            tasks_yml = open(p, encoding="utf-8", errors="replace").read()
        os.rename(wdir, tmpl)
        common = {"tool": "task", "text": text, "import_rc": imp["rc"],
                  "import_report": imp["err"], "tasks_yml": tasks_yml,
                  "included_imports": inc}
        if lst["rc"] != 0:
            results.append(dict(common, id=case["dir"], args=[], cls="tool-rejects",
                                tool_rc=lst["rc"], tool_err=lst["err"][-2000:],
                                tool_lines=[], runner_rc=None, runner_lines=[]))
            return results
        names = yaml_task_names(text)
        if not names:
            results.append(dict(common, id=case["dir"], args=[], cls="no-tasks", tool_rc=0,
                                tool_lines=[], runner_rc=None, runner_lines=[]))
            return results
        for i, name in enumerate(names):
            cid = "%s:%s" % (case["dir"], name)
            if "*" in name:
                results.append(dict(common, id=cid, args=[name], cls="skipped-wildcard",
                                    tool_rc=None, tool_lines=[], runner_rc=None, runner_lines=[]))
                continue
            shutil.rmtree(home, ignore_errors=True)
            os.makedirs(home)
            copytree(case["src"], wdir)
            tr = run([cfg.task, name], os.path.join(wdir, sub), env)
            shutil.rmtree(wdir, ignore_errors=True)
            shutil.rmtree(home, ignore_errors=True)
            os.makedirs(home)
            copytree(tmpl, wdir)
            scratch = os.path.join(tmp, "s%d" % i)
            os.makedirs(scratch)
            rr = run_runner(cfg.runner, os.path.join(wdir, sub), [name], env, "", scratch)
            tool_lines = lines(tr["out"])
            if re.search(r"^\s*output\s*:\s*prefixed", text, re.M):
                tool_lines = [re.sub(r"^\[[^\]]*\] ", "", l) for l in tool_lines]
            results.append(dict(common, id=cid, args=[name], tool_rc=tr["rc"],
                                tool_timeout=tr["timeout"], tool_lines=tool_lines,
                                tool_err=tr["err"][-3000:], runner_rc=rr["rc"],
                                runner_timeout=rr["timeout"], runner_lines=rr["lines"],
                                runner_console=(rr["out"] + rr["err"])[-3000:]))
            shutil.rmtree(wdir, ignore_errors=True)
    return results


# ---------------------------------------------------------------- just

ESC = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'"}


class Complex(Exception):
    pass


def rust_string(src, i):
    """Parse a Rust string literal at src[i]; return (value, next index)."""
    if src.startswith("r", i):
        m = re.compile(r'r(#*)"').match(src, i)
        if not m:
            raise Complex("raw")
        close = '"' + m.group(1)
        j = src.find(close, m.end())
        if j < 0:
            raise Complex("raw-unterminated")
        return src[m.end():j], j + len(close)
    if src[i] != '"':
        raise Complex("not a string")
    out, j = [], i + 1
    while j < len(src):
        c = src[j]
        if c == '"':
            return "".join(out), j + 1
        if c == "\\":
            n = src[j + 1]
            if n == "\n":
                j += 2
                while j < len(src) and src[j] in " \t\n\r":
                    j += 1
                continue
            if n in ESC:
                out.append(ESC[n])
                j += 2
                continue
            if n == "u":
                m = re.compile(r"\\u\{([0-9a-fA-F_]+)\}").match(src, j)
                out.append(chr(int(m.group(1).replace("_", ""), 16)))
                j = m.end()
                continue
            if n == "x":
                out.append(chr(int(src[j + 2:j + 4], 16)))
                j += 4
                continue
            raise Complex("escape")
        out.append(c)
        j += 1
    raise Complex("unterminated")


def skip_ws(src, i):
    while i < len(src):
        if src[i].isspace():
            i += 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = len(src) if j < 0 else j + 1
        else:
            break
    return i


def parse_args(src, i):
    """Parse call arguments after '(' at src[i-1]; return (list, next index).

    Each argument is a str, a list of str, a bool, or Complex (not a literal)."""
    args, depth_start = [], i
    while True:
        i = skip_ws(src, i)
        if src[i] == ")":
            return args, i + 1
        start = i
        val = None
        try:
            if src[i] == '"' or re.compile(r'r#*"').match(src, i):
                val, i = rust_string(src, i)
            elif src[i] in "&[":
                if src[i] == "&":
                    i = skip_ws(src, i + 1)
                if src[i] != "[":
                    raise Complex("ref")
                i += 1
                items = []
                while True:
                    i = skip_ws(src, i)
                    if src[i] == "]":
                        i += 1
                        break
                    s, i = rust_string(src, i)
                    items.append(s)
                    i = skip_ws(src, i)
                    if src[i] == ",":
                        i += 1
                val = items
            elif src.startswith("true", i) or src.startswith("false", i):
                val = src.startswith("true", i)
                i += 4 if val else 5
            else:
                raise Complex("expr")
            i = skip_ws(src, i)
            if src[i] not in ",)":
                raise Complex("expr")
        except (Complex, IndexError, AttributeError, ValueError):
            val = Complex()
            i = skip_expr(src, start)
        args.append(val)
        i = skip_ws(src, i)
        if src[i] == ",":
            i += 1


def skip_expr(src, i):
    """Skip one argument expression: up to ',' or ')' at depth 0."""
    depth = 0
    while i < len(src):
        c = src[i]
        if c == '"' or (c == "r" and re.compile(r'r#*"').match(src, i) and not src[i - 1].isalnum()):
            try:
                _, i = rust_string(src, i)
            except Complex:
                i += 1
            continue
        if c == "'" and re.compile(r"'(\\.|[^\\'])'").match(src, i):
            i = re.compile(r"'(\\.|[^\\'])'").match(src, i).end()
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif c == "," and depth == 0:
            return i
        i += 1
    return i


def just_cases(root):
    cases, skipped = [], collections.Counter()
    tdir = os.path.join(root, "tests")
    for fn in sorted(os.listdir(tdir)):
        if not fn.endswith(".rs") or fn in ("test.rs", "lib.rs"):
            continue
        src = open(os.path.join(tdir, fn), encoding="utf-8").read()
        fns = [(m.start(), m.group(1)) for m in re.finditer(r"\bfn\s+(\w+)\s*\(", src)]
        counts = collections.Counter()
        for m in re.finditer(r"Test::new\(\)", src):
            fname = "?"
            for pos, name in fns:
                if pos < m.start():
                    fname = name
            counts[fname] += 1
            cid = "%s::%s" % (fn[:-3], fname) + ("#%d" % counts[fname] if counts[fname] > 1 else "")
            i = m.end()
            calls = []
            try:
                while True:
                    i = skip_ws(src, i)
                    if i >= len(src) or src[i] != ".":
                        break
                    mm = re.compile(r"\.\s*(\w+)\s*(::<[^>]*>)?\s*\(").match(src, i)
                    if not mm:
                        break
                    args, i = parse_args(src, mm.end())
                    calls.append((mm.group(1), args))
            except IndexError:
                skipped["unparsed chain"] += 1
                continue
            case = {"tool": "just", "id": cid, "files": [], "dirs": [], "args": [],
                    "env": {}, "stdin": "", "cwd": "", "justfile": None, "exec": []}
            why = None
            for name, args in calls:
                lit = all(not isinstance(a, Complex) for a in args)
                if name in ("justfile", "arg", "args", "write", "write_executable", "env",
                            "stdin", "current_dir", "create_dir") and not lit:
                    why = "non-literal .%s()" % name
                    break
                if name == "justfile":
                    case["justfile"] = args[0]
                elif name == "arg":
                    case["args"].append(args[0])
                elif name == "args":
                    case["args"] += args[0] if isinstance(args[0], list) else [args[0]]
                elif name in ("write", "write_executable"):
                    case["files"].append((args[0], args[1]))
                    if name == "write_executable":
                        case["exec"].append(args[0])
                elif name == "env":
                    case["env"][args[0]] = args[1]
                elif name == "unstable":
                    case["env"]["JUST_UNSTABLE"] = "1"
                elif name == "stdin":
                    case["stdin"] = args[0]
                elif name == "current_dir":
                    case["cwd"] = args[0]
                elif name == "create_dir":
                    case["dirs"].append(args[0])
                elif name in ("path", "symlink", "env_remove", "make_executable"):
                    why = ".%s()" % name
                    break
            if why is None:
                if case["justfile"] is None:
                    names = [p for p, _ in case["files"]
                             if re.fullmatch(r"\.?justfile", os.path.basename(p), re.I)
                             and os.path.dirname(p) in ("", case["cwd"])]
                    if not names:
                        why = "no justfile"
                    else:
                        case["jf_name"] = names[0]
                else:
                    case["jf_name"] = "justfile"
            if why is None and any(a.startswith("-") for a in case["args"]):
                why = "command-line options"
            if why is None and any("/" in a and "=" not in a for a in case["args"]):
                why = "search-path arguments (dir/recipe)"
            if why:
                skipped[why] += 1
                continue
            cases.append(case)
    return cases, skipped


def unindent(text):
    """just's unindent (src/unindent.rs)."""
    ls = text.splitlines(keepends=True)

    def blank(l):
        return all(c in " \t\r\n" for c in l)

    def indentation(l):
        n = 0
        while n < len(l) and l[n] in " \t":
            n += 1
        return l[:n]

    common = None
    for l in ls:
        if blank(l):
            continue
        ind = indentation(l)
        if common is None:
            common = ind
        else:
            n = 0
            while n < len(common) and n < len(ind) and common[n] == ind[n]:
                n += 1
            common = common[:n]
    common = common or ""
    out = []
    for k, l in enumerate(ls):
        b, first, last = blank(l), k == 0, k == len(ls) - 1
        if b and not first and not last:
            out.append("\r\n" if l.endswith("\r\n") else "\n")
        elif b:
            out.append("")
        else:
            out.append(l[len(common):])
    return "".join(out)


def map_just_args(args, dump, text=""):
    """just's positional arguments to runner's: NAME=value and '--' words."""
    if dump is None:
        return list(args), False
    recipes = dump.get("recipes", {})
    aliases = {k: v.get("target") for k, v in dump.get("aliases", {}).items()}
    # `alias f := foo` of a module (just's dump leaves these out): `f` names the module too
    modules = dump.get("modules", {})
    for m in re.finditer(r"^alias\s+([\w-]+)\s*:=\s*([\w-]+)\s*$", text, re.M):
        if m.group(2) in modules and m.group(1) not in modules:
            modules = dict(modules, **{m.group(1): modules[m.group(2)]})
    dump = dict(dump, modules=modules)
    out, rest, i = [], [], 0
    approx = False
    while i < len(args) and "=" in args[i] and re.match(r"^[A-Za-z_][\w-]*=", args[i]):
        k, v = args[i].split("=", 1)
        out.append("%s=%s" % (k.replace("-", "_"), v))
        i += 1
    while i < len(args):
        name = args[i]
        i += 1
        # `foo::x=b`: the module's variable, runner's `foo:x=b`
        if "::" in name and re.match(r"^[\w-]+(::[\w-]+)*::[A-Za-z_][\w-]*=", name):
            out.append(name.replace("::", ":"))
            continue
        # a module's recipe: `foo::b`, or `foo b`; runner's include namespace is `foo:b`
        parts = name.split("::")
        scope = dump
        for part in parts[:-1]:
            scope = (scope or {}).get("modules", {}).get(part)
        while scope is not None and parts[-1] in scope.get("modules", {}) and i < len(args):
            scope = scope["modules"][parts[-1]]
            parts.append(args[i])
            i += 1
        if len(parts) > 1 and scope is not None:
            name = ":".join(parts)
            scope_aliases = {k: v.get("target") for k, v in scope.get("aliases", {}).items()}
            r = scope.get("recipes", {}).get(scope_aliases.get(parts[-1], parts[-1]))
        else:
            r = recipes.get(aliases.get(name, name))
        if r is None:
            out.append(name)
            continue
        out.append(name)
        params = r.get("parameters", [])
        for p in params:
            pname = p["name"].replace("-", "_")
            if p.get("long") or p.get("short"):
                # an option ([arg(NAME, long)]) is named where it is given, never positional
                continue
            if p.get("kind") in ("plus", "star"):
                rest += args[i:]
                i = len(args)
                approx = True
                break
            if i < len(args):
                out.append("%s=%s" % (pname, args[i]))
                i += 1
    if rest:
        out += ["--"] + rest
    return out, approx


def do_just_case(case, cfg):
    with tempfile.TemporaryDirectory(prefix="suite-just-") as tmp:
        home = os.path.join(tmp, "home")
        os.makedirs(home)
        env = base_env(home, case["env"])
        tmpl = os.path.join(tmp, "case")
        os.makedirs(tmpl)
        for d in case["dirs"]:
            os.makedirs(os.path.join(tmpl, d), exist_ok=True)
        if case["justfile"] is not None:
            with open(os.path.join(tmpl, "justfile"), "w", encoding="utf-8", newline="") as f:
                f.write(unindent(case["justfile"]))
        for p, content in case["files"]:
            fp = os.path.join(tmpl, p)
            os.makedirs(os.path.dirname(fp), exist_ok=True)
            with open(fp, "w", encoding="utf-8", newline="") as f:
                f.write(unindent(content))
            if p in case["exec"]:
                os.chmod(fp, 0o755)
        cwd_rel = case["cwd"]
        # the justfile just uses: the nearest one from the working directory up
        jf = None
        d = cwd_rel
        while jf is None:
            full = os.path.join(tmpl, d)
            if os.path.isdir(full):
                for n in sorted(os.listdir(full)):
                    if re.fullmatch(r"\.?justfile", n, re.I) and os.path.isfile(os.path.join(full, n)):
                        jf = os.path.join(d, n)
                        break
            if jf is None:
                if d in ("", "."):
                    break
                d = os.path.dirname(d)
        if jf is None:
            jf = case["jf_name"]
        text = open(os.path.join(tmpl, jf), encoding="utf-8", errors="replace").read()
        dump_r = run([cfg.just, "--dump", "--dump-format", "json"], os.path.join(tmpl, cwd_rel), env)
        # every justfile of the case is imported (runner finds the nearest
        # tasks.yml as just finds the nearest justfile), in the path both run in
        wdir = os.path.join(tmp, "w")
        copytree(tmpl, wdir)
        imports = []
        done = set()
        for dirpath, _, filenames in os.walk(wdir):
            for n in sorted(filenames):
                if re.fullmatch(r"\.?justfile", n, re.I):
                    if os.path.exists(os.path.join(dirpath, "tasks.yml")):
                        break  # a module's, imported as the report asked
                    r = run([cfg.runner, "import", n], dirpath, env)
                    imports.append((os.path.relpath(os.path.join(dirpath, n), wdir), r))
                    # `mod`: the modules' files, as the report says
                    follow_includes(cfg.runner, dirpath, r["err"], env, done)
                    break
        main_imp = next((r for p, r in imports if p == jf), None)
        rank = {0: 0, 3: 1}
        worst = max((r["rc"] for _, r in imports), key=lambda rc: rank.get(rc, 2), default=None)
        jdir = os.path.join(wdir, os.path.dirname(jf))
        tasks_yml = ""
        if os.path.exists(os.path.join(jdir, "tasks.yml")):
            tasks_yml = open(os.path.join(jdir, "tasks.yml"), encoding="utf-8", errors="replace").read()
        os.rename(wdir, os.path.join(tmp, "imported"))
        common = {"tool": "just", "id": case["id"], "text": text, "args": case["args"],
                  "import_rc": worst,
                  "import_report": "".join("[%s] exit %d\n%s" % (p, r["rc"], r["err"]) for p, r in imports),
                  "tasks_yml": tasks_yml, "env": case["env"], "justfile_path": jf,
                  "main_import_rc": main_imp["rc"] if main_imp else None}
        if dump_r["rc"] != 0:
            return [dict(common, cls="tool-rejects", tool_rc=dump_r["rc"],
                         tool_err=dump_r["err"][-2000:], tool_lines=[], runner_rc=None,
                         runner_lines=[])]
        try:
            dump = json.loads(dump_r["out"])
        except ValueError:
            dump = None
        rargs, _ = map_just_args(case["args"], dump, text)
        if re.match(r"\s*y", case["stdin"], re.I):
            rargs = ["--yes"] + rargs  # the test answers just's [confirm] with y
        copytree(tmpl, wdir)
        tr = run([cfg.just] + case["args"], os.path.join(wdir, cwd_rel), env, case["stdin"])
        shutil.rmtree(wdir, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
        os.makedirs(home)
        copytree(os.path.join(tmp, "imported"), wdir)
        scratch = os.path.join(tmp, "s")
        os.makedirs(scratch)
        rr = run_runner(cfg.runner, os.path.join(wdir, cwd_rel), rargs, env, case["stdin"], scratch)
        return [dict(common, runner_args=rargs, tool_rc=tr["rc"], tool_timeout=tr["timeout"],
                     tool_lines=lines(tr["out"]), tool_err=tr["err"][-3000:],
                     runner_rc=rr["rc"], runner_timeout=rr["timeout"],
                     runner_lines=rr["lines"], runner_console=(rr["out"] + rr["err"])[-3000:])]


# ---------------------------------------------------------------- classify


def classify(r):
    if "cls" in r:
        return r
    ok_t, ok_r = r["tool_rc"] == 0, r["runner_rc"] == 0
    same_lines = collections.Counter(r["tool_lines"]) == collections.Counter(r["runner_lines"])
    r["same_order"] = r["tool_lines"] == r["runner_lines"]
    if same_lines and ok_t == ok_r:
        r["cls"] = "same"
    elif r["import_rc"] in (2, 3):
        r["cls"] = "reported"
    else:
        r["cls"] = "silent"
    return r


def _extra(r):
    """Lines runner printed that the tool did not (multiset difference)."""
    return list((collections.Counter(r["runner_lines"]) - collections.Counter(r["tool_lines"])).elements())


def _txt(r, pat, flags=re.M):
    return re.search(pat, r["text"], flags) is not None


CAUSES = [
    # (name, predicate over the result); the first that holds names the cause
    ("`-` line (just): `exit N || true` still exits the shell",
     lambda r: re.search(r"run:.*\bexit [0-9]+ \|\| true|-\s*exit [0-9]+ \|\| true", r["tasks_yml"])),
    ("command-line override of a variable the import inlined (unknown param)",
     lambda r: "unknown param" in r.get("runner_console", "")),
    ("runner could not run the imported file (load or usage error)",
     lambda r: r["runner_rc"] == 2),
    ("prompt / confirm",
     lambda r: "prompt" in r.get("runner_console", "") and "needs an answer" in r.get("runner_console", "")),
    ("runner's files (tasks.yml, .runner) visible to the commands",
     lambda r: _extra(r) and all(re.search(r"tasks\.yml|\.runner", l) for l in _extra(r))),
    ("go-task's shell is mvdan/sh, not bash: builtins print differently",
     lambda r: r["tool"] == "task" and
     [re.sub(r"\s+", " ", l) for l in r["tool_lines"]] == [re.sub(r"\s+", " ", l) for l in r["runner_lines"]]),
    ("timeout (one side hung: prompt, sleep, interactive)",
     lambda r: r.get("tool_timeout") or r.get("runner_timeout")),
    ("variable scoping: task-call vars, dotenv and global vars precedence (go-task)",
     lambda r: r["tool"] == "task" and ("var_inheritance" in r["id"] or _txt(r, r"^\s*dotenv\s*:"))),
    ("special variables ({{.TIMESTAMP}}, {{.CHECKSUM}}, …)",
     lambda r: _txt(r, r"\{\{\s*\.(TIMESTAMP|CHECKSUM|EXIT_CODE|ALIAS|MATCH)")),
    ("task `dir:` (~, a directory go-task creates, relative to an include)",
     lambda r: r["tool"] == "task" and _txt(r, r"^\s*dir\s*:")),
    ("fail-fast / parallel deps when one fails",
     lambda r: r["tool_rc"] != 0 and r["runner_rc"] != 0),
    ("`&& dep` (just subsequents) run again; runner runs a task once",
     lambda r: r["tool"] == "just" and _txt(r, r"^\S.*:.*&&")),
    ("exported parameter / `$name` in the environment",
     lambda r: r["tool"] == "just" and _txt(r, r"\$[A-Za-z_]|export")),
    ("shebang / [script] / tempdir / [extension]",
     lambda r: _txt(r, r"#!|\[script|\[extension|tempdir")),
    ("comments in `\\` continuations (ignore-comments)",
     lambda r: _txt(r, r"ignore-comments")),
    ("dotenv", lambda r: _txt(r, r"dotenv")),
    ("set shell / shopt / set", lambda r: _txt(r, r"set\s+shell|shopt|^\s*set\s*:")),
    ("working directory / no-cd / invocation directory",
     lambda r: _txt(r, r"working-directory|no-cd|invocation_directory|USER_WORKING_DIR")),
    ("recipe/task arguments (positional, variadic, CLI_ARGS)",
     lambda r: (r["tool"] == "just" and len(r["args"]) > 1) or "CLI_ARGS" in r["text"]),
    ("same lines, different success (exit status semantics)",
     lambda r: collections.Counter(r["tool_lines"]) == collections.Counter(r["runner_lines"])),
    ("backtick / sh: variable", lambda r: "`" in r["text"] or _txt(r, r"\bsh\s*:")),
    ("sources / generates / status (up-to-date checks)",
     lambda r: _txt(r, r"^\s*(sources|generates|status|method)\s*:")),
    ("templates / interpolation", lambda r: "{{" in r["text"]),
    ("runner failed, tool succeeded", lambda r: r["tool_rc"] == 0 and r["runner_rc"] != 0),
    ("runner succeeded, tool failed", lambda r: r["tool_rc"] != 0 and r["runner_rc"] == 0),
    ("other", lambda r: True),
]


def guess_cause(r):
    for name, pred in CAUSES:
        try:
            if pred(r):
                return name
        except Exception:
            continue
    return "other"


# ---------------------------------------------------------------- report


def summarize(results):
    rows = []
    for tool in ("just", "task"):
        rs = [r for r in results if r["tool"] == tool and r["cls"] in
              ("same", "reported", "silent", "tool-rejects")]
        c = collections.Counter(r["cls"] for r in rs)
        rej = [r for r in rs if r["cls"] == "tool-rejects"]
        rej_c = collections.Counter(r["import_rc"] for r in rej)
        ok = [r for r in rs if r["cls"] != "tool-rejects" and r["tool_rc"] == 0]
        ok_same = sum(1 for r in ok if r["cls"] == "same")
        order = sum(1 for r in rs if r["cls"] == "same" and not r.get("same_order", True))
        rows.append({"tool": tool, "cases": len(rs), "same": c["same"], "reported": c["reported"],
                     "silent": c["silent"], "tool-rejects": len(rej),
                     "rejects_refused": rej_c[2], "rejects_accepted": len(rej) - rej_c[2],
                     "rejects_accepted_exit0": rej_c[0],
                     "tool_ok": len(ok), "tool_ok_same": ok_same, "same_other_order": order})
    return rows


def table(rows, extra):
    out = ["| tool | cases | same | reported | silent | tool-rejects (import refused / accepted) | same output when the tool succeeds |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        frac = "%d/%d = %.0f%%" % (r["tool_ok_same"], r["tool_ok"],
                                     100.0 * r["tool_ok_same"] / r["tool_ok"]) if r["tool_ok"] else "-"
        out.append("| %s | %d | %d | %d | %d | %d (%d / %d, %d of them exit 0) | %s |" % (
            {"just": "just", "task": "go-task"}[r["tool"]], r["cases"], r["same"], r["reported"],
            r["silent"], r["tool-rejects"], r["rejects_refused"], r["rejects_accepted"],
            r["rejects_accepted_exit0"], frac))
    return "\n".join(out + [""] + extra)


def fmt_lines(ls, limit=40):
    if not ls:
        return "    (none)"
    body = ["    " + repr(l)[1:-1] if any(ord(c) < 32 for c in l) else "    " + l for l in ls[:limit]]
    if len(ls) > limit:
        body.append("    … %d more" % (len(ls) - limit))
    return "\n".join(body)


def indent(text, p="    "):
    return "\n".join(p + l for l in text.rstrip("\n").split("\n")) if text.strip() else p + "(empty)"


def write_silent(results, path, header):
    silent = [r for r in results if r["cls"] == "silent"]
    accepted = [r for r in results if r["cls"] == "tool-rejects" and r["import_rc"] == 0]
    groups = collections.defaultdict(list)
    for r in silent:
        groups[guess_cause(r)].append(r)
    out = [header, "", "%d silent cases (import exit 0, different output or success)." % len(silent), ""]
    out.append("Causes (guessed from the file and the difference; first matching rule):")
    for cause, rs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        out.append("  %4d  %s" % (len(rs), cause))
    out.append("")
    for cause, rs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        out.append("=" * 78)
        out.append("CAUSE: %s (%d)" % (cause, len(rs)))
        out.append("=" * 78)
        for r in rs:
            out.append("-" * 78)
            out.append("%s %s   args: %s%s" % (r["tool"], r["id"], " ".join(r["args"]) or "(none)",
                                               ("   runner args: " + " ".join(r["runner_args"]))
                                               if r.get("runner_args") not in (None, r["args"]) else ""))
            if r.get("env"):
                out.append("env: %s" % r["env"])
            out.append("%s:" % ("justfile" if r["tool"] == "just" else "Taskfile"))
            out.append(indent(r["text"]))
            out.append("tool: exit %s%s, stdout:" % (r["tool_rc"], " (timeout)" if r.get("tool_timeout") else ""))
            out.append(fmt_lines(r["tool_lines"]))
            if r["tool_rc"] != 0 and r.get("tool_err"):
                out.append("  tool stderr (tail):")
                out.append(indent("\n".join(r["tool_err"].strip().split("\n")[-4:]), "    "))
            out.append("runner: exit %s%s, task stdout:" % (r["runner_rc"], " (timeout)" if r.get("runner_timeout") else ""))
            out.append(fmt_lines(r["runner_lines"]))
            if r["runner_rc"] != 0 and r.get("runner_console"):
                out.append("  runner console (tail):")
                out.append(indent("\n".join(r["runner_console"].strip().split("\n")[-6:]), "    "))
            out.append("tasks.yml:")
            out.append(indent(r["tasks_yml"]))
            out.append("")
    if accepted:
        out.append("=" * 78)
        out.append("TOOL REJECTS THE FILE, IMPORT EXITED 0 (%d)" % len(accepted))
        out.append("=" * 78)
        for r in accepted:
            out.append("-" * 78)
            out.append("%s %s" % (r["tool"], r["id"]))
            out.append(indent(r["text"]))
            out.append("tool error (tail):")
            out.append(indent("\n".join(r.get("tool_err", "").strip().split("\n")[-4:])))
            out.append("tasks.yml:")
            out.append(indent(r["tasks_yml"]))
            out.append("")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    return groups


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runner", help="the runner binary (a copy: it must not change under the run)")
    ap.add_argument("--just", default=os.path.join(VENV_BIN, "just"))
    ap.add_argument("--task", default=os.path.join(VENV_BIN, "task"))
    ap.add_argument("--just-git", default=os.path.join(MIRRORS, "casey+just", "repo"))
    ap.add_argument("--task-git", default=os.path.join(MIRRORS, "go-task+task", "repo"))
    ap.add_argument("--tools", default="just,task")
    ap.add_argument("--only", default="", help="regex on case ids")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--out", default=HERE)
    cfg = ap.parse_args()
    cfg.runner = os.path.abspath(cfg.runner)
    t0 = time.monotonic()
    tools = cfg.tools.split(",")
    work = tempfile.mkdtemp(prefix="suites-src-")
    header = []
    jobs = []
    skipped = collections.Counter()
    try:
        if "just" in tools:
            v = tool_version(cfg.just)
            src = extract(cfg.just_git, [v, "v" + v], ["tests"], os.path.join(work, "just"))
            header.append("just %s, tests from casey/just %s" % (v, src))
            cs, skipped = just_cases(os.path.join(work, "just"))
            jobs += [(do_just_case, c) for c in cs if re.search(cfg.only, c["id"])]
        if "task" in tools:
            v = tool_version(cfg.task)
            src = extract(cfg.task_git, ["v" + v, v], ["testdata"], os.path.join(work, "task"))
            header.append("go-task %s, testdata from go-task/task %s" % (v, src))
            jobs += [(do_task_case, c) for c in task_cases(os.path.join(work, "task"))
                     if re.search(cfg.only, c["dir"])]
        rv = run([cfg.runner, "--version"], "/", os.environ.copy())
        header.append("runner %s (%s)" % (rv["out"].strip(), cfg.runner))
        results = []
        done = 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=cfg.jobs) as ex:
            futs = {ex.submit(f, c, cfg): c for f, c in jobs}
            for fut in concurrent.futures.as_completed(futs):
                c = futs[fut]
                try:
                    results += [classify(r) for r in fut.result()]
                except Exception as e:  # a harness fault: record it, go on
                    results.append({"tool": c["tool"], "id": c.get("id", c.get("dir")),
                                    "cls": "harness-error", "error": repr(e)})
                done += 1
                if done % 100 == 0:
                    print("… %d/%d (%.0fs)" % (done, len(jobs), time.monotonic() - t0),
                          file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results.sort(key=lambda r: (r["tool"], r["id"]))
    secs = time.monotonic() - t0
    rows = summarize(results)
    other = collections.Counter((r["tool"], r["cls"]) for r in results
                                if r["cls"] not in ("same", "reported", "silent", "tool-rejects"))
    extra = ["just test chains skipped: %s" % dict(skipped)] if skipped else []
    if other:
        extra.append("not counted: %s" % {"%s %s" % k: v for k, v in sorted(other.items())})
    extra.append("same lines in another order (counted as same): %s" %
                 ", ".join("%s %d" % (r["tool"], r["same_other_order"]) for r in rows))
    extra.append("runtime %.0f s, %d jobs" % (secs, cfg.jobs))
    text = table(rows, extra)
    os.makedirs(cfg.out, exist_ok=True)
    groups = write_silent(results, os.path.join(cfg.out, "silent.txt"), "\n".join(header + ["", text]))
    with open(os.path.join(cfg.out, "results.json"), "w", encoding="utf-8") as f:
        json.dump({"header": header, "rows": rows, "results": results}, f, indent=1)
    print("\n".join(header))
    print()
    print(text)
    print()
    print("silent cases by guessed cause:")
    for cause, rs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print("  %4d  %s  (e.g. %s %s)" % (len(rs), cause, rs[0]["tool"], rs[0]["id"]))


if __name__ == "__main__":
    main()
