#!/usr/bin/env bash
# Lays out four C projects from PyPI sdists' bundled sources in DIR, each with its own build:
#   brotli-dec  make   (c/common + c/dec, 12 files)   -> libbrotlidec.a
#   brotli-enc  ninja  (c/common + c/enc, 29 files)   -> libbrotlienc.a
#   zstd        make   (the amalgamated zstd.c compiled twice: two long jobs) -> libzstd.a
#   tool        make   (c/tools/brotli.c linked with both brotli libraries), after the two
# and a tasks.yml for runner, plus a top-level Makefile that does the same with $(MAKE).
#
#   bash Benchmarks/jobserver/projects.sh DIR
set -euo pipefail
dir=$1
mkdir -p "$dir/sdists"
cd "$dir"
[ -f sdists/brotli-1.2.1.tar.gz ] || python3 -m pip download -q --no-deps --no-binary :all: -d sdists brotli==1.2.1
[ -f sdists/zstandard-0.25.0.tar.gz ] || python3 -m pip download -q --no-deps --no-binary :all: -d sdists zstandard==0.25.0
rm -rf src && mkdir src
tar xzf sdists/brotli-1.2.1.tar.gz -C src
tar xzf sdists/zstandard-0.25.0.tar.gz -C src
brotli=$PWD/src/brotli-1.2.1/c
zstd=$PWD/src/zstandard-0.25.0/zstd
flags='-O2 -g0'

# A make project: every .c of SOURCES to an object, then an archive.
make_project() {
  local name=$1 include=$2
  shift 2
  mkdir -p "$name"
  {
    echo "CFLAGS = $flags -I$include"
    printf 'SRCS ='
    printf ' %s' "$@"
    echo
    echo 'OBJS = $(addprefix obj/,$(notdir $(SRCS:.c=.o)))'
    echo "vpath %.c $(printf '%s\n' "$@" | xargs -n1 dirname | sort -u | tr '\n' ' ')"
    echo "lib$name.a: \$(OBJS)"
    echo '	ar rcs $@ $^'
    echo 'obj/%.o: %.c'
    echo '	@mkdir -p obj'
    echo '	$(CC) $(CFLAGS) -c $< -o $@'
    echo 'clean:'
    echo '	rm -rf obj *.a'
  } > "$name/Makefile"
}

make_project brotli-dec "$brotli/include" "$brotli"/common/*.c "$brotli"/dec/*.c

mkdir -p brotli-enc
{
  echo "cflags = $flags -I$brotli/include"
  echo 'rule cc'
  echo '  command = cc $cflags -c $in -o $out'
  echo 'rule ar'
  echo '  command = rm -f $out && ar rcs $out $in'
  objects=()
  for source in "$brotli"/common/*.c "$brotli"/enc/*.c; do
    object="obj/$(basename "$(dirname "$source")")-$(basename "${source%.c}").o"
    objects+=("$object")
    echo "build $object: cc $source"
  done
  echo "build libbrotlienc.a: ar ${objects[*]}"
  echo 'default libbrotlienc.a'
} > brotli-enc/build.ninja

# zstd.c is one translation unit; two objects of it (compiled alike: -D names a part zstd.c
# ignores) make two long jobs, as a real library's largest files would.
mkdir -p zstd
cat > zstd/Makefile <<MAKE
CFLAGS = $flags -I$zstd
PARTS = compress decompress
libzstd.a: \$(addprefix obj/,\$(addsuffix .o,\$(PARTS)))
	ar rcs \$@ \$^
obj/%.o: $zstd/zstd.c
	@mkdir -p obj
	\$(CC) \$(CFLAGS) -DRUNNER_BENCH_PART=\$* -c \$< -o \$@
clean:
	rm -rf obj *.a
MAKE

mkdir -p tool
cat > tool/Makefile <<MAKE
brotli: $brotli/tools/brotli.c ../brotli-dec/libbrotli-dec.a ../brotli-enc/libbrotlienc.a
	\$(CC) $flags -I$brotli/include \$^ -lm -o \$@
clean:
	rm -f brotli
MAKE

cat > tasks.yml <<'YAML'
tasks:
  brotli-dec: { dir: brotli-dec, run: make -s }
  brotli-enc: { dir: brotli-enc, run: ninja, jobserver: fifo }
  zstd: { dir: zstd, run: make -s }
  tool: { dir: tool, deps: [brotli-dec, brotli-enc], run: make -s }
  all: { deps: [tool, zstd] }
YAML

# Without the jobserver: each tool runs as many jobs as the machine has cores (what a task
# file says when nothing shares the budget).
cat > no-jobserver.yml <<'YAML'
tasks:
  brotli-dec: { dir: brotli-dec, run: 'make -s -j$(nproc)', jobserver: false }
  brotli-enc: { dir: brotli-enc, run: 'ninja -j$(nproc)', jobserver: false }
  zstd: { dir: zstd, run: 'make -s -j$(nproc)', jobserver: false }
  tool: { dir: tool, deps: [brotli-dec, brotli-enc], run: make -s, jobserver: false }
  all: { deps: [tool, zstd] }
YAML

# make's own jobserver, the reference: the same four under one recursive make.
cat > Makefile <<'MAKE'
all: tool zstd
brotli-dec:
	+@$(MAKE) -s -C brotli-dec
brotli-enc:
	+@cd brotli-enc && ninja
zstd:
	+@$(MAKE) -s -C zstd
tool: brotli-dec brotli-enc
	+@$(MAKE) -s -C tool
.PHONY: all brotli-dec brotli-enc zstd tool
MAKE
