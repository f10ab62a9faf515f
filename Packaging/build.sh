#!/usr/bin/env bash
# Builds runner's release artefacts into dist/:
#   runner-VERSION-linux-x86_64.tar.gz   the binary (Swift runtime, Foundation, libyaml, libpng,
#                                        libjpeg and zlib linked in), completions, man page,
#                                        schema, README, third-party notices
#   runner_VERSION_amd64.deb             the same under /usr, Depends from the binary's real needs
#   runner_bin-VERSION-py3-none-manylinux_2_N_x86_64.whl   puts runner on the environment's PATH
#   SHA256SUMS
# Needs: a Swift 6.2 toolchain, libyaml-dev libpng-dev libjpeg62-turbo-dev (their .a archives),
# dpkg-dev (dpkg-shlibdeps), python3. Figures (sizes, time): Benchmarks/README.md.
#   RUNNER_DIST_SCRATCH=.build-dist   where SwiftPM builds
set -euo pipefail
umask 022
cd "$(dirname "$0")/.."
root=$PWD
started=$(date +%s)
version=$(sed -n 's/.*static let semantic = "\(.*\)".*/\1/p' Sources/RunnerKit/RunnerVersion.swift)
[ -n "$version" ] || { echo "build.sh: no version in Sources/RunnerKit/RunnerVersion.swift" >&2; exit 1; }
arch=$(uname -m)
[ "$arch" = x86_64 ] || { echo "build.sh: only x86_64 is packaged so far (this is $arch)" >&2; exit 1; }
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
scratch=${RUNNER_DIST_SCRATCH:-.build-dist}
dist=$root/dist
work=$root/$scratch/package
rm -rf "$work" && mkdir -p "$work" "$dist"
rm -f "$dist"/runner[-_]* "$dist/SHA256SUMS"

# The C libraries statically: a folder holding only their .a archives, and pkg-config files
# that name it (SwiftPM puts each package's libdir on the link line, the system's first
# otherwise), make the linker's -lyaml -lpng16 -ljpeg -lz pick them.
static=$root/$scratch/static-libs
mkdir -p "$static/pkgconfig"
for library in yaml png16 jpeg z; do
  archive=/usr/lib/$multiarch/lib$library.a
  [ -f "$archive" ] || { echo "build.sh: $archive is missing (install the -dev package)" >&2; exit 1; }
  ln -sf "$archive" "$static/"
done
pc() { printf 'libdir=%s\nincludedir=/usr/include\n\nName: %s\nDescription: static\nVersion: 0\nLibs: -L${libdir} %s\nCflags: -I/usr/include%s\n' "$static" "$1" "$2" "${3:-}" > "$static/pkgconfig/$1.pc"; }
pc yaml-0.1 -lyaml
pc libpng16 "-lpng16 -lz -lm" /libpng16
pc libjpeg -ljpeg
PKG_CONFIG_PATH=$static/pkgconfig swift build -c release --static-swift-stdlib --scratch-path "$scratch"
binary=$scratch/release/runner

if ldd "$binary" | grep -E 'swift|/opt/|libyaml|libpng|libjpeg|libz\.' >&2; then
  echo "build.sh: the binary still needs the libraries above" >&2
  exit 1
fi

# The tree every artefact is made from (schema at ../share/runner/ from the binary: --init finds it).
stage=$work/runner-$version-linux-$arch
mkdir -p "$stage/bin" "$stage/share/runner" "$stage/share/man/man1" "$stage/share/doc/runner" \
  "$stage/share/bash-completion/completions" "$stage/share/zsh/site-functions" \
  "$stage/share/fish/vendor_completions.d"
strip -o "$stage/bin/runner" "$binary"
# runner-trace: a static program remote execution sends to workers for `sources: auto` tasks.
mkdir -p "$stage/libexec/runner"
strip -o "$stage/libexec/runner/runner-trace" "$scratch/release/runner-trace"
"$stage/bin/runner" --generate-completion-script bash > "$stage/share/bash-completion/completions/runner"
"$stage/bin/runner" --generate-completion-script zsh > "$stage/share/zsh/site-functions/_runner"
"$stage/bin/runner" --generate-completion-script fish > "$stage/share/fish/vendor_completions.d/runner.fish"
python3 Packaging/manpage.py "$stage/bin/runner" "$version" > "$stage/share/man/man1/runner.1"
cp schema/tasks.schema.json "$stage/share/runner/"
cp README.md "$stage/share/doc/runner/"
cp -r docs "$stage/share/doc/runner/docs"
RUNNER_DIST_SCRATCH=$scratch bash Packaging/notices.sh "$multiarch" > "$stage/share/doc/runner/THIRD-PARTY-NOTICES"

tarball=runner-$version-linux-$arch.tar.gz
tar -C "$work" --owner=0 --group=0 --numeric-owner -czf "$dist/$tarball" "runner-$version-linux-$arch"

# .deb: the tree under /usr, with Debian's places for completions, man pages and docs.
deb=$work/deb
mkdir -p "$deb/DEBIAN" "$deb/usr/share/zsh/vendor-completions"
cp -r "$stage/bin" "$deb/usr/bin"
cp -r "$stage/libexec" "$deb/usr/libexec"
cp -r "$stage/share/runner" "$stage/share/bash-completion" "$stage/share/fish" "$deb/usr/share/"
mkdir -p "$deb/usr/share/man/man1" "$deb/usr/share/doc/runner"
gzip -9n -c "$stage/share/man/man1/runner.1" > "$deb/usr/share/man/man1/runner.1.gz"
cp "$stage/share/zsh/site-functions/_runner" "$deb/usr/share/zsh/vendor-completions/"
cp "$stage/share/doc/runner/THIRD-PARTY-NOTICES" "$deb/usr/share/doc/runner/copyright"
gzip -9n -c README.md > "$deb/usr/share/doc/runner/README.md.gz"
cp -r docs "$deb/usr/share/doc/runner/docs"
# Depends: what the binary really loads, from the shlibs files of the packages that provide it.
mkdir -p "$work/shlibs/debian"
printf 'Source: runner\n\nPackage: runner\nArchitecture: amd64\n' > "$work/shlibs/debian/control"
depends=$(cd "$work/shlibs" && dpkg-shlibdeps -O "$deb/usr/bin/runner" | sed -n 's/^shlibs:Depends=//p' || true)
[ -n "$depends" ] || { echo "build.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size=$(du -sk "$deb/usr" | cut -f1)
cat > "$deb/DEBIAN/control" <<EOF
Package: runner
Version: $version
Architecture: amd64
Maintainer: runner developers <runner@localhost>
Installed-Size: $size
Depends: $depends
Recommends: git, graphviz
Section: devel
Priority: optional
Description: dependency-graph build and task runner
 runner reads a YAML task file (tasks.yml), builds a task graph and runs it:
 shell commands and built-in image steps, concurrency and priorities, fail-fast,
 incremental runs and a local cache, services, watch, CI reports.
EOF
deb_file=runner_${version}_amd64.deb
dpkg-deb --root-owner-group -Zxz --build "$deb" "$dist/$deb_file" > /dev/null

# Wheel: its platform tag from the newest glibc symbol version the binary needs.
glibc=$(objdump -T "$stage/bin/runner" | grep -o 'GLIBC_2\.[0-9]*' | sort -t. -k2 -n -u | tail -1)
platform=manylinux_2_${glibc#GLIBC_2.}_$arch
wheel=$(python3 Packaging/wheel.py "$stage" "$version" "$platform" "$dist")

cd "$dist"
sha256sum "$tarball" "$deb_file" "$(basename "$wheel")" > SHA256SUMS
echo "dist/ ($(( $(date +%s) - started ))s; depends: $depends; needs $glibc):"
ls -l "$tarball" "$deb_file" "$(basename "$wheel")" SHA256SUMS
