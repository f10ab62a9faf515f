#!/usr/bin/env bash
# Prints the copyright and license notices of everything linked into the release binary:
# the Swift runtime and Foundation, swift-argument-parser, swift-crypto (with BoringSSL) and
# swift-asn1, libyaml, libpng, libjpeg-turbo and zlib. Their licenses ask binary
# distributions to carry these notices.   notices.sh MULTIARCH
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${SCRATCH:-.build-dist}
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
section() {
  printf '\n==============================================================================\n'
  printf '%s\n' "$1"
  printf '==============================================================================\n\n'
  cat "$2"
}
echo "runner links the following software into its binary; their notices follow."
section "Swift runtime and standard library, Foundation (Apache-2.0 with Runtime Library Exception)" \
  "$toolchain/share/swift/LICENSE.txt"
for package in swift-argument-parser swift-crypto swift-asn1; do
  file=$(ls "$scratch/checkouts/$package"/LICENSE* | head -1)
  section "$package" "$file"
done
for package in libyaml-0-2 libpng16-16 libjpeg62-turbo zlib1g; do
  section "$package (Debian's copyright file)" "/usr/share/doc/$package/copyright"
done
