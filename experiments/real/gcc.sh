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
SRC=${SRC:-$(gcc_default_src)}
[ -d "$SRC" ] || { echo "no C code base: set SRC (zstd-sys's zstd/lib is the default)" >&2; exit 2; }
VERSIONS="$(gcc --version | head -1); $(make --version | head -1); source $SRC"
gcc_build_sh "$ROUNDS" "$SRC" > "$RUN/gcc-build.sh"
capture gcc "$SIZE" sh "$RUN/gcc-build.sh"
