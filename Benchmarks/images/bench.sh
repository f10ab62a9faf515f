#!/usr/bin/env bash
# Times runner's image path against libvips, Pillow and ImageMagick on a 12-megapixel JPEG:
#   blur:   decode, Gaussian blur sigma 5, encode JPEG q85
#   resize: decode, resize to 50% (Lanczos3 where the tool has it), encode JPEG q85
# Each command runs REPEAT times (default 5) after one untimed warm-up run; the median and
# the best wall time are reported. On a shared machine compare ratios taken in one session.
#
# Needs: swift build -c release --scratch-path .build-release   (builds the runner binary),
#   python3, apt-get install libvips-tools imagemagick (vips, convert-im6.q16), pip install pillow
# Missing tools are skipped with a note, never silently.
#
# Environment: RUNNER (default <repo>/.build-release/release/runner, else <repo>/.build/release/runner),
#   WORK (default /tmp/runner-image-bench), REPEAT (default 5),
#   TOOLS (default "runner vips pillow imagemagick"; ImageMagick's blur alone takes ~25 s a run here).
# runner is called as `runner --force --no-cache tasks.yml blur` (the task file is copied into
# WORK): without those flags the second and later runs are "up to date" and do no image work
# at all, and the first stores the result in .runner/cache, which the peers do not do.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
if [[ -z "${RUNNER:-}" ]]; then
  RUNNER="$repo/.build-release/release/runner"
  [[ -x "$RUNNER" ]] || RUNNER="$repo/.build/release/runner"
fi
WORK="${WORK:-/tmp/runner-image-bench}"
REPEAT="${REPEAT:-5}"
TOOLS=" ${TOOLS:-runner vips pillow imagemagick} "
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

# timed NAME CMD... : runs CMD once to warm up, then REPEAT times; prints the median and best wall time.
timed() {
  local name="$1"
  shift
  local times=() start end
  for run in $(seq 0 "$REPEAT"); do
    start=$(date +%s.%N)
    if ! "$@" >/dev/null 2>"$WORK/last-error.txt"; then
      printf '%-28s failed: %s\n' "$name" "$(head -c 300 "$WORK/last-error.txt")"
      return 0
    fi
    end=$(date +%s.%N)
    if ((run > 0)); then times+=("$(echo "$end - $start" | bc)"); fi
  done
  local sorted
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  printf '%-28s median %6.3f s   best %6.3f s\n' "$name" \
    "$(echo "$sorted" | sed -n "$(((REPEAT + 1) / 2))p")" "$(echo "$sorted" | head -1)"
}

skip() { printf '%-28s skipped: %s\n' "$1" "$2"; }

wants() { [[ $TOOLS == *" $1 "* ]]; }

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

echo "12-megapixel JPEG, median of $REPEAT runs, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for task in blur resize; do
  echo "== $task"
  if ! wants runner; then
    :
  elif [[ -x "$RUNNER" ]]; then
    timed "runner" "$RUNNER" --force --no-cache tasks.yml "$task"
  else
    skip "runner" "$RUNNER not built (swift build -c release --scratch-path .build-release)"
  fi
  if ! wants vips; then
    :
  elif command -v vips >/dev/null; then
    if [[ $task == blur ]]; then
      # vips' default min-ampl 0.2 truncates the kernel early; 0.01 is close to runner's 3σ radius.
      timed "vips gaussblur" vips gaussblur big.jpg 'out-vips.jpg[Q=85]' 5 --min-ampl 0.01
      # vips' defaults (min-ampl 0.2: radius 9 instead of 15; Q 75), as the issue quotes it.
      timed "vips gaussblur (defaults)" vips gaussblur big.jpg out-vips-default.jpg 5
    else
      timed "vips resize" vips resize big.jpg 'out-vips.jpg[Q=85]' 0.5 --kernel lanczos3
    fi
  else
    skip "vips" "apt-get install libvips-tools"
  fi
  if ! wants pillow; then
    :
  elif python3 -c 'import PIL' 2>/dev/null; then
    timed "pillow" pillow "$task" out-pillow.jpg
  else
    skip "pillow" "pip install pillow"
  fi
  if ! wants imagemagick; then
    :
  elif [[ -n "$IM" ]]; then
    if [[ $task == blur ]]; then
      timed "imagemagick -gaussian-blur" "$IM" big.jpg -gaussian-blur 0x5 -quality 85 out-im.jpg
    else
      timed "imagemagick -resize" "$IM" big.jpg -filter Lanczos -resize 50% -quality 85 out-im.jpg
    fi
  else
    skip "imagemagick" "apt-get install imagemagick"
  fi
done
