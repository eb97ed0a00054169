#!/usr/bin/env bash
# GCC builds of a real C code base, ROUNDS times, a third of the sources
# touched before each rebuild (make decides what to rebuild). The code
# base: SRC, default zstd's lib/ (C, ~60 files) from the zstd-sys crate in
# the cargo registry (the workspace depends on it, so it is there offline).
. "$(dirname "$0")/common.sh"
need gcc build-essential
need make build-essential

ROUNDS=${ROUNDS:-4}
SIZE=${SIZE:-256MiB}
SRC=${SRC:-$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/zstd-sys-*/zstd/lib 2>/dev/null | head -1)}
[ -d "$SRC" ] || { echo "no C code base: set SRC (zstd-sys's zstd/lib is the default)" >&2; exit 2; }
VERSIONS="$(gcc --version | head -1); $(make --version | head -1); source $SRC"
cat > "$RUN/gcc-build.sh" <<SCRIPT
set -e
cp -r '$SRC' src
cd src
files=\$(find . -name '*.c' | sort)
n=\$(echo "\$files" | wc -l)
cat > Makefile.ftlsim <<'MK'
SRCS := \$(shell find . -name '*.c' | sort)
OBJS := \$(SRCS:.c=.o)
lib.a: \$(OBJS)
	ar rcs \$@ \$^
%.o: %.c
	gcc -O1 -g -c -I. -Icommon -DZSTD_MULTITHREAD=0 -DZSTD_DISABLE_ASM -o \$@ \$<
MK
for r in \$(seq 1 $ROUNDS); do
    make -s -j2 -f Makefile.ftlsim lib.a
    sleep 1
    # A third of the sources, a different third each round.
    echo "\$files" | awk -v r=\$r 'NR % 3 == r % 3' | xargs touch
done
ls -la lib.a
SCRIPT
capture gcc "$SIZE" sh "$RUN/gcc-build.sh"
