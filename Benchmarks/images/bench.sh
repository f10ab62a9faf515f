#!/usr/bin/env bash
# Times runner's image path against libvips, Pillow and ImageMagick on a 12-megapixel JPEG:
#   blur:   decode, Gaussian blur sigma 5, encode JPEG q85
#   resize: decode, resize to 50% (Lanczos3 where the tool has it), encode JPEG q85
# Each command runs REPEAT times (default 3); the best wall time is reported.
#
# Needs: swift build -c release (for .build/release/runner), python3,
#   apt-get install libvips-tools imagemagick    (vips, convert-im6.q16)
#   pip install pillow
# Missing tools are skipped with a note, never silently.
#
# Environment: RUNNER (default <repo>/.build/release/runner), WORK (default /tmp/runner-image-bench),
#   REPEAT (default 3), RUNNER_ARGS (default "run --file tasks.yml": the task name is appended).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
RUNNER="${RUNNER:-$repo/.build/release/runner}"
WORK="${WORK:-/tmp/runner-image-bench}"
REPEAT="${REPEAT:-3}"
RUNNER_ARGS="${RUNNER_ARGS:-run --file tasks.yml}"
IM="$(command -v convert-im6.q16 || command -v magick || true)"

mkdir -p "$WORK"
cp "$here/tasks.yml" "$WORK/tasks.yml"
cd "$WORK"

if [[ ! -s big.jpg ]]; then
  echo "generating big.jpg (4000x3000)..." >&2
  python3 "$here/make_big_jpeg.py" big.ppm
  if command -v vips >/dev/null; then
    vips copy big.ppm 'big.jpg[Q=90]'
  elif [[ -n "$IM" ]]; then
    "$IM" big.ppm -quality 90 big.jpg
  else
    echo "need vips or ImageMagick to make big.jpg (apt-get install libvips-tools)" >&2
    exit 1
  fi
  rm -f big.ppm
fi

# best_of NAME CMD... : runs CMD REPEAT times, prints the best wall time in seconds.
best_of() {
  local name="$1"
  shift
  local best="" start end elapsed
  for _ in $(seq "$REPEAT"); do
    start=$(date +%s.%N)
    if ! "$@" >/dev/null 2>"$WORK/last-error.txt"; then
      printf '%-28s failed: %s\n' "$name" "$(head -c 300 "$WORK/last-error.txt")"
      return 0
    fi
    end=$(date +%s.%N)
    elapsed=$(echo "$end - $start" | bc)
    if [[ -z "$best" ]] || (($(echo "$elapsed < $best" | bc))); then best="$elapsed"; fi
  done
  printf '%-28s %6.3f s\n' "$name" "$best"
}

skip() { printf '%-28s skipped: %s\n' "$1" "$2"; }

pillow() {
  python3 - "$@" <<'PY'
import sys
from PIL import Image, ImageFilter
mode, out = sys.argv[1], sys.argv[2]
im = Image.open("big.jpg")
if mode == "blur":
    im = im.filter(ImageFilter.GaussianBlur(5))
else:
    im = im.resize((im.width // 2, im.height // 2), Image.LANCZOS)
im.save(out, quality=85)
PY
}

echo "12-megapixel JPEG, best of $REPEAT, $(nproc) cores"
for task in blur resize; do
  echo "== $task"
  if [[ -x "$RUNNER" ]]; then
    # shellcheck disable=SC2086
    best_of "runner" "$RUNNER" $RUNNER_ARGS "$task"
  else
    skip "runner" "$RUNNER not built (swift build -c release)"
  fi
  if command -v vips >/dev/null; then
    if [[ $task == blur ]]; then
      # vips' default min-ampl 0.2 truncates the kernel early; 0.01 is close to runner's 3σ radius.
      best_of "vips gaussblur" vips gaussblur big.jpg 'out-vips.jpg[Q=85]' 5 --min-ampl 0.01
    else
      best_of "vips resize" vips resize big.jpg 'out-vips.jpg[Q=85]' 0.5 --kernel lanczos3
    fi
  else
    skip "vips" "apt-get install libvips-tools"
  fi
  if python3 -c 'import PIL' 2>/dev/null; then
    best_of "pillow" pillow "$task" out-pillow.jpg
  else
    skip "pillow" "pip install pillow"
  fi
  if [[ -n "$IM" ]]; then
    if [[ $task == blur ]]; then
      best_of "imagemagick -gaussian-blur" "$IM" big.jpg -gaussian-blur 0x5 -quality 85 out-im.jpg
    else
      best_of "imagemagick -resize" "$IM" big.jpg -filter Lanczos -resize 50% -quality 85 out-im.jpg
    fi
  else
    skip "imagemagick" "apt-get install imagemagick"
  fi
done
