#!/usr/bin/env bash
# Builds and runs the libFuzzer targets outside SwiftPM's manifest.
#
#   Fuzz/fuzz.sh TARGET SECONDS     fuzz one target (yaml, png, jpeg, jpegbands, output, template)
#   Fuzz/fuzz.sh all SECONDS        fuzz each target in turn for SECONDS
#   Fuzz/fuzz.sh build              only build the targets
#   Fuzz/fuzz.sh smoke              CI: replay seeds and reproducers, then a fixed-seed, fixed-count
#                                   run of each target (deterministic, about a minute with the build)
#
# The targets link the sources they exercise straight from Sources/ (Imaging whole, the part of
# RunnerKit that reads task files and $RUNNER_OUTPUT), compiled with -sanitize=fuzzer,address.
# The committed seeds in Fuzz/corpus/TARGET are copied into a working corpus under .build-fuzz/,
# which grows across runs; crashes, hangs and leaks land in .build-fuzz/artifacts/TARGET and make
# the script exit non-zero. FUZZ_TIMEOUT (seconds per input, default 3: a loaded 2-core machine
# stretches a 20 ms input past 1 s) makes a slow input a finding; every input over 1 s is
# logged as a slow unit either way.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(yaml png jpeg jpegbands output template)
out=${FUZZ_BUILD:-.build-fuzz}
objs=$out/objs
mkdir -p "$objs"

swift_flags=(
  -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -package-name runner
  -module-cache-path "$objs/module-cache" -I "$objs" -I /usr/include/libpng16
  -Xcc -fmodule-map-file=Sources/CYaml/module.modulemap
  -Xcc -fmodule-map-file=Sources/CPNG/module.modulemap
  -Xcc -fmodule-map-file=Sources/CJPEG/module.modulemap
)

# The slice the targets reach, built as one module named RunnerKit on top of RunnerBasics:
# RunnerModel (YAML, schema, graph checks, diagnostics) and the $RUNNER_OUTPUT parser from
# RunnerProcess. Leaving out the cache keeps swift-crypto out.
runnerkit_sources() {
  find Sources/RunnerModel -name '*.swift' | sort
  echo Sources/RunnerProcess/OutputFileParser.swift
  echo Sources/RunnerProcess/OutputFileError.swift
}

# Rebuilds $1 from the remaining arguments when any of them is newer.
stale() {
  local product=$1 input
  shift
  [ -e "$product" ] || return 0
  # `input`, not `source`: bash's dynamic scope would overwrite the caller's `source`.
  for input in "$@"; do [ "$input" -nt "$product" ] && return 0; done
  return 1
}

# Builds the static library of module $1 from the sources listed on stdin, when any of them
# (or of the libraries given as further arguments) is newer than it.
library() {
  local module=$1 sources
  shift
  mapfile -t sources
  if stale "$objs/lib$module.a" "${sources[@]}" "$@"; then
    echo "== fuzz: building $module"
    swiftc "${swift_flags[@]}" -emit-library -static -emit-module -module-name "$module" "${sources[@]}" \
      -o "$objs/lib$module.a"
  fi
}

build() {
  find Sources/Imaging -name '*.swift' | sort | library Imaging
  find Sources/RunnerBasics -name '*.swift' | sort | library RunnerBasics
  runnerkit_sources | library RunnerKit "$objs/libImaging.a" "$objs/libRunnerBasics.a"
  for target in "${targets[@]}"; do
    local source=Fuzz/Targets/$target.swift
    if stale "$out/fuzz-$target" "$source" "$objs/libRunnerKit.a" "$objs/libRunnerBasics.a" "$objs/libImaging.a"; then
      echo "== fuzz: building fuzz-$target"
      # lld from the toolchain: gold crashes on some of the sanitizer builds' debug info.
      swiftc "${swift_flags[@]}" "$source" -L "$objs" -lRunnerKit -lRunnerBasics -lImaging -lyaml -lpng16 -ljpeg \
        -use-ld=lld -o "$out/fuzz-$target"
    fi
  done
}

run() {
  local target=$1 seconds=$2
  local corpus=$out/corpus/$target artifacts=$out/artifacts/$target
  mkdir -p "$corpus" "$artifacts"
  cp -n Fuzz/corpus/"$target"/* "$corpus"/ 2>/dev/null || true
  local options=(-max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-3}" -report_slow_units=1 -rss_limit_mb=2048
    -artifact_prefix="$artifacts/" -print_final_stats=1)
  case $target in
    yaml) options+=(-max_len=16384 -dict=Fuzz/dicts/yaml.dict) ;;
    png | jpeg | jpegbands) options+=(-max_len=65536) ;;
    output | template) options+=(-max_len=8192) ;;
  esac
  echo "== fuzz: $target for ${seconds}s"
  local log=$out/fuzz-$target.log
  if ! "$out/fuzz-$target" "${options[@]}" "$corpus" >"$log" 2>&1; then
    tail -60 "$log" >&2
    echo "FAIL: fuzz-$target found a problem; reproducer in $artifacts/" >&2
    return 1
  fi
  grep -E "stat::number_of_executed_units|cov:" "$log" | tail -2
}

# Replays the seeds and the committed reproducers of past findings, then mutates from a fixed
# seed for a fixed number of inputs: the same inputs every time, so CI cannot flake on luck.
smoke() {
  local target=$1 runs=$2
  local corpus=$out/smoke/$target
  rm -rf "$corpus"
  mkdir -p "$corpus" "$out/artifacts/$target"
  cp Fuzz/corpus/"$target"/* "$corpus"/
  local inputs=("Fuzz/corpus/$target"/*)
  if [ -d "Fuzz/regressions/$target" ]; then inputs+=("Fuzz/regressions/$target"/*); fi
  local log=$out/smoke-$target.log
  if ! "$out/fuzz-$target" -timeout=10 -rss_limit_mb=2048 "${inputs[@]}" >"$log" 2>&1 \
    || ! "$out/fuzz-$target" -seed=1 -runs="$runs" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
      -artifact_prefix="$out/artifacts/$target/" "$corpus" >>"$log" 2>&1; then
    tail -60 "$log" >&2
    echo "FAIL: fuzz smoke of $target" >&2
    return 1
  fi
  echo "fuzz smoke $target: ${#inputs[@]} saved inputs, $runs mutations, ok"
}

case ${1:-} in
  build) build ;;
  smoke)
    build
    smoke yaml 30000
    smoke png 100000
    smoke jpeg 30000
    smoke jpegbands 3000
    smoke output 100000
    smoke template 60000
    ;;
  all)
    build
    for target in "${targets[@]}"; do run "$target" "${2:?seconds}"; done
    ;;
  yaml | png | jpeg | jpegbands | output | template)
    build
    run "$1" "${2:?seconds}"
    ;;
  *)
    echo "usage: $0 {yaml|png|jpeg|jpegbands|output|template|all} SECONDS | $0 build" >&2
    exit 2
    ;;
esac
