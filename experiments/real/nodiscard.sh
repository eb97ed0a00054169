#!/usr/bin/env bash
# The real workloads again on ext4 mounted without `discard` (`device run
# --discard off`), on devices small enough that the file system's footprint
# nears their capacity, with more rounds: the FTL learns that data died only
# when its LBA is written again, so GC has valid pages to copy. Traces are
# NAME-nodiscard.trace; experiments/pcstream-real.toml replays them.
set -euo pipefail
HERE=$(dirname "$0")
export DISCARD=off SUFFIX=-nodiscard
SIZE=384MiB NUM=400000 bash "$HERE/rocksdb.sh"
SIZE=192MiB ROUNDS=6000 bash "$HERE/sqlite.sh"
SIZE=192MiB bash "$HERE/fio-dedupe.sh"
SIZE=256MiB NUM=150000 ROUNDS=1000 bash "$HERE/mixed.sh"
SIZE=192MiB ROUNDS=6 bash "$HERE/gcc.sh"
