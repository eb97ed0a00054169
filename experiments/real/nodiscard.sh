#!/usr/bin/env bash
# The real workloads again on ext4 mounted without `discard` (`device run
# --discard off`), on devices small enough that the file system's footprint
# nears their capacity, with more rounds: the FTL learns that data died only
# when its LBA is written again, so GC has valid pages to copy. Traces are
# NAME-nodiscard.trace; experiments/pcstream-real-local.toml replays them.
set -euo pipefail
HERE=$(dirname "$0")
export DISCARD=off SUFFIX=-nodiscard
SIZE=512MiB NUM=400000 bash "$HERE/rocksdb.sh"
SIZE=192MiB ROUNDS=6000 bash "$HERE/sqlite.sh"
SIZE=192MiB bash "$HERE/fio-dedupe.sh"
SIZE=256MiB NUM=150000 ROUNDS=1000 bash "$HERE/mixed.sh"
SIZE=192MiB ROUNDS=6 bash "$HERE/gcc.sh"
# fio again with its file near the device's capacity (150 MiB of 192):
# random overwrites of live data, the case where GC must copy.
SUFFIX=-full SIZE=192MiB FIO_SIZE=150M IO_SIZE=600M bash "$HERE/fio-dedupe.sh"
# SQLite with a 300 000-row table (about 100 MB, filled through the WAL)
# on 256 MiB: updates rewrite random pages of a database that fills much
# of the device.
SUFFIX=-full SIZE=256MiB ROWS=300000 ROUNDS=10000 bash "$HERE/sqlite.sh"
