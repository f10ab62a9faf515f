#!/usr/bin/env bash
# Prints the copyright and license notices of everything linked into the release binary:
# the Swift runtime and Foundation, swift-argument-parser, swift-crypto (with BoringSSL) and
# swift-asn1, libyaml, libpng, libjpeg-turbo and zlib. Their licenses ask binary
# distributions to carry these notices.   notices.sh MULTIARCH
set -euo pipefail
cd "$(dirname "$0")/.."
multiarch=${1:-x86_64-linux-gnu}
scratch=${RUNNER_DIST_SCRATCH:-.build-dist}
# The toolchain's runtime (lib/swift); its license is in share/swift beside lib.
resources=$(swift -print-target-info | sed -n 's/.*"runtimeResourcePath": "\(.*\)".*/\1/p')
license=$(dirname "$(dirname "$resources")")/share/swift/LICENSE.txt
[ -f "$license" ] || { echo "notices.sh: no Swift license at $license" >&2; exit 1; }
section() {
  printf '\n==============================================================================\n'
  printf '%s\n' "$1"
  printf '==============================================================================\n\n'
  cat "$2"
}
echo "runner links the following software into its binary; their notices follow."
section "Swift runtime and standard library, Foundation (Apache-2.0 with Runtime Library Exception)" \
  "$license"
for package in swift-argument-parser swift-crypto swift-asn1; do
  for file in "$scratch/checkouts/$package"/LICENSE* "$scratch/checkouts/$package"/NOTICE*; do
    [ -f "$file" ] && section "$package: $(basename "$file")" "$file"
  done
done
# The C libraries: the copyright file of the package that ships each static archive.
for library in yaml png16 jpeg z; do
  package=$(dpkg -S "/usr/lib/$multiarch/lib$library.a" | cut -d: -f1)
  section "lib$library ($package's copyright file)" "/usr/share/doc/$package/copyright"
done
