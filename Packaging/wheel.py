#!/usr/bin/env python3
"""Writes runner's wheel: the binary as a script (pip puts it in the environment's bin/),
the schema, man page and completions as data (under the environment's share/).

    wheel.py STAGE VERSION PLATFORM OUTDIR

STAGE is the tarball's tree (bin/runner, share/...). The standard library only: a wheel is
a zip with a .dist-info (PEP 427), no build backend needed.
"""
import base64
import hashlib
import os
import sys
import zipfile

stage, version, platform, outdir = sys.argv[1:5]
name = "runner_bin"
data = f"{name}-{version}.data"
info = f"{name}-{version}.dist-info"
wheel = os.path.join(outdir, f"{name}-{version}-py3-none-{platform}.whl")

metadata = f"""Metadata-Version: 2.1
Name: runner-bin
Version: {version}
Summary: runner, a dependency-graph build and task runner, as a prebuilt Linux binary
Requires-Python: >=3.7
Description-Content-Type: text/markdown

Installs the `runner` executable (a static build: no Swift toolchain needed) into the
environment's `bin/`, with its JSON Schema in `share/runner/`, man page and shell completions.
"""
wheel_file = f"""Wheel-Version: 1.0
Generator: runner Packaging/wheel.py
Root-Is-Purelib: false
Tag: py3-none-{platform}
"""

records = []


def digest(content):
    hashed = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
    return f"sha256={hashed}"


def add(archive, arcname, content, mode=0o644):
    entry = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
    entry.external_attr = (0o100000 | mode) << 16
    entry.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(entry, content)
    records.append(f"{arcname},{digest(content)},{len(content)}")


tmp = wheel + ".tmp"
with zipfile.ZipFile(tmp, "w") as archive:
    for root, _, files in sorted(os.walk(stage)):
        for file in sorted(files):
            path = os.path.join(root, file)
            relative = os.path.relpath(path, stage)
            with open(path, "rb") as handle:
                content = handle.read()
            if relative == "bin/runner":
                add(archive, f"{data}/scripts/runner", content, 0o755)
            elif relative.startswith("share/"):
                add(archive, f"{data}/data/{relative}", content)
            elif relative.startswith("libexec/"):
                # Beside bin/: runner finds it at ../libexec/runner/ from itself.
                add(archive, f"{data}/data/{relative}", content, 0o755)
    add(archive, f"{info}/METADATA", metadata.encode())
    add(archive, f"{info}/WHEEL", wheel_file.encode())
    record = "\n".join(records + [f"{info}/RECORD,,"]) + "\n"
    entry = zipfile.ZipInfo(f"{info}/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
    entry.external_attr = (0o100644) << 16
    archive.writestr(entry, record)
os.replace(tmp, wheel)
print(wheel)
