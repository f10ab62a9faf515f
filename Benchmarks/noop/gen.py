#!/usr/bin/env python3
"""Writes the same N-task graph for runner (tasks.yml) and ninja (build.ninja).

Task i reads src/tI/{a,b,c}.c, writes out/tI.o, and depends on tasks i//2 and i-1 (when
they exist): a deep, bushy graph. usage: gen.py N DIR
"""
import os
import sys

count, root = int(sys.argv[1]), sys.argv[2]
os.makedirs(os.path.join(root, "out"), exist_ok=True)
yaml = ["tasks:"]
ninja = ["rule cat", "  command = cat $in > $out", ""]
for i in range(count):
    src = os.path.join(root, "src", f"t{i}")
    os.makedirs(src, exist_ok=True)
    for name in "abc":
        with open(os.path.join(src, f"{name}.c"), "w") as f:
            f.write(f"/* task {i} file {name} */\nint f{i}{name}(void) {{ return {i}; }}\n")
    deps = sorted({d for d in (i // 2, i - 1) if 0 <= d < i})
    yaml.append(f"  t{i}:")
    if deps:
        yaml.append(f"    deps: [{', '.join(f't{d}' for d in deps)}]")
    yaml.append(f"    run: cat src/t{i}/a.c src/t{i}/b.c src/t{i}/c.c > out/t{i}.o")
    yaml.append(f'    sources: ["src/t{i}/*.c"]')
    yaml.append(f"    outputs: [out/t{i}.o]")
    implicit = " ".join(f"out/t{d}.o" for d in deps)
    ninja.append(
        f"build out/t{i}.o: cat src/t{i}/a.c src/t{i}/b.c src/t{i}/c.c" + (f" | {implicit}" if implicit else ""))
with open(os.path.join(root, "tasks.yml"), "w") as f:
    f.write("\n".join(yaml) + "\n")
with open(os.path.join(root, "build.ninja"), "w") as f:
    f.write("\n".join(ninja) + "\n")
