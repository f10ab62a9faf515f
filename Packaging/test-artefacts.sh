#!/usr/bin/env bash
# Proves the artefacts in dist/ run on a machine without Swift: in a private mount namespace
# (unshare, as root) the toolchain's directory is hidden under an empty tmpfs, then each
# artefact is installed exactly as the README says and runs a task file with a shell task and
# an image step, and prints --graph mermaid. Fails loudly on the first problem.
#   bash Packaging/test-artefacts.sh     (after Packaging/build.sh; CI runs both)
# RUNNER_INSTALL_DEB=1 also installs the .deb for real with apt (CI does; it changes /usr).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
if [ "${1:-}" != --inside ]; then
  [ "$(id -u)" = 0 ] || { echo "test-artefacts.sh: needs root (a mount namespace hides the toolchain)" >&2; exit 1; }
  (cd dist && sha256sum -c --quiet SHA256SUMS)
  # Hide the Swift runtime (lib/swift and lib/swift_static of the toolchain), wherever it is
  # installed (/opt/swift/usr, /usr in the swift: images, swiftly's folder).
  resources=$(swift -print-target-info | sed -n 's/.*"runtimeResourcePath": "\(.*\)".*/\1/p')
  case "$resources" in */lib/swift) ;; *) echo "test-artefacts.sh: unexpected runtime at '$resources'" >&2; exit 1 ;; esac
  exec unshare -m --propagation private bash -c "mount -t tmpfs none '$resources' &&
    { [ ! -d '${resources}_static' ] || mount -t tmpfs none '${resources}_static'; } &&
    exec bash '$root/Packaging/test-artefacts.sh' --inside"
fi

fail() { echo "test-artefacts.sh: $*" >&2; exit 1; }
version=$(sed -n 's/.*static let semantic = "\(.*\)".*/\1/p' Sources/RunnerKit/RunnerVersion.swift)
# Nothing of Swift's runtime may be visible, or this proves nothing.
found=$(find /usr /lib /lib64 /opt -name 'libswiftCore.so*' 2> /dev/null | head -1 || true)
[ -z "$found" ] || fail "a Swift runtime is still visible: $found"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
project=$scratch/project
mkdir -p "$project/deep/er/still"
cp examples/images/village.png "$project/"
cat > "$project/tasks.yml" <<'EOF'
tasks:
  hello: { run: 'echo "hello from $RUNNER_TASK"' }
  small:
    image: [{ load: village.png }, { resize: { width: 64 } }, { save: small.png }]
  all: { deps: [hello, small] }
EOF

# check NAME RUNNER: the version, a run from three directories down, the graph, --init.
check() {
  local name=$1 runner=$2
  if ldd "$runner" | grep -Ei 'swift|not found' >&2; then fail "$name: needs the libraries above"; fi
  # runner-trace, which remote execution sends to workers: installed beside runner, static.
  trace=$(dirname "$(dirname "$(readlink -f "$runner")")")/libexec/runner/runner-trace
  [ -x "$trace" ] || fail "$name: no runner-trace at $trace"
  ldd "$trace" 2>&1 | grep -q 'not a dynamic executable' || fail "$name: runner-trace is not static"
  "$runner" --version | grep -q "^$version" || fail "$name: --version says '$("$runner" --version)'"
  rm -f "$project/small.png"
  out=$(cd "$project/deep/er/still" && "$runner" all) || fail "$name: the run failed: $out"
  grep -q 'hello | hello from hello' <<< "$out" || fail "$name: no task output in: $out"
  [ -s "$project/small.png" ] || fail "$name: the image step wrote no small.png"
  graph=$(cd "$project" && "$runner" --graph mermaid all) || fail "$name: --graph mermaid failed"
  grep -q 'flowchart' <<< "$graph" || fail "$name: no mermaid graph: $graph"
  starter=$(mktemp -d)
  (cd "$starter" && "$runner" --init > /dev/null && "$runner" --list > /dev/null) || fail "$name: --init"
  schema=$(sed -n 's/^# yaml-language-server: \$schema=//p' "$starter/tasks.yml")
  [ -f "$schema" ] || fail "$name: --init's schema line names '$schema', which does not exist"
  # The installed schema, beside the binary: not a copy elsewhere on this machine.
  [ "$schema" = "$(dirname "$(dirname "$(readlink -f "$runner")")")/share/runner/tasks.schema.json" ] \
    || fail "$name: --init's schema line names '$schema', not the one installed with it"
  rm -rf "$starter"
  echo "ok: $name ($("$runner" --version))"
}

# The tarball, as the README installs it (in a fresh HOME).
export HOME=$scratch/home
mkdir -p "$HOME"
cd dist
mkdir -p ~/.local && tar -xzf "runner-$version-linux-x86_64.tar.gz" -C ~/.local --strip-components=1
check tarball "$HOME/.local/bin/runner"
grep -q '^\.SH OPTIONS' "$HOME/.local/share/man/man1/runner.1" || fail "tarball: no man page"

# The wheel, as the README installs it: into a virtual environment.
python3 -m venv ~/.venvs/runner && ~/.venvs/runner/bin/pip install --quiet runner_bin-"$version"-*.whl
check wheel "$HOME/.venvs/runner/bin/runner"
cd "$root"

# The .deb: unpacked, and (RUNNER_INSTALL_DEB=1) installed with apt.
dpkg-deb -x "dist/runner_${version}_amd64.deb" "$scratch/deb"
check "deb (unpacked)" "$scratch/deb/usr/bin/runner"
if [ "${RUNNER_INSTALL_DEB:-}" = 1 ]; then
  trap 'apt-get remove -y -qq runner > /dev/null 2>&1; rm -rf "$scratch"' EXIT
  apt-get install -y -qq "$root/dist/runner_${version}_amd64.deb" > /dev/null
  check "deb (apt install)" /usr/bin/runner
fi
echo "test-artefacts.sh: every artefact ran without Swift"
