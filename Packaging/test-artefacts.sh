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
  toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
  exec unshare -m --propagation private bash -c \
    "mount -t tmpfs none '$toolchain' && exec bash '$root/Packaging/test-artefacts.sh' --inside"
fi

fail() { echo "test-artefacts.sh: $*" >&2; exit 1; }
version=$(sed -n 's/.*static let semantic = "\(.*\)".*/\1/p' Sources/RunnerKit/RunnerVersion.swift)
# Nothing of Swift's runtime may be visible, or this proves nothing.
! command -v swift > /dev/null || fail "swift is still on the PATH: $(command -v swift)"
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
  rm -rf "$starter"
  echo "ok: $name ($("$runner" --version))"
}

# The tarball, as the README installs it.
export HOME=$scratch/home
mkdir -p "$HOME/.local"
(cd dist && tar -xzf "runner-$version-linux-x86_64.tar.gz" -C ~/.local --strip-components=1)
check tarball "$HOME/.local/bin/runner"
man -l "$HOME/.local/share/man/man1/runner.1" > /dev/null 2>&1 || [ -s "$HOME/.local/share/man/man1/runner.1" ] \
  || fail "tarball: no man page"

# The wheel, into a fresh virtual environment.
python3 -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install --quiet --no-index dist/runner_bin-"$version"-*.whl
check wheel "$scratch/venv/bin/runner"

# The .deb: unpacked, and (RUNNER_INSTALL_DEB=1) installed with apt.
dpkg-deb -x "dist/runner_${version}_amd64.deb" "$scratch/deb"
check "deb (unpacked)" "$scratch/deb/usr/bin/runner"
if [ "${RUNNER_INSTALL_DEB:-}" = 1 ]; then
  apt-get install -y -qq "$root/dist/runner_${version}_amd64.deb" > /dev/null
  check "deb (apt install)" /usr/bin/runner
  apt-get remove -y -qq runner > /dev/null
fi
echo "test-artefacts.sh: every artefact ran without Swift"
