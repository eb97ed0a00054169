#!/usr/bin/env bash
# RocksDB db_bench (Debian rocksdb-tools): fillrandom then overwrite, on a
# live device, captured. NUM keys (default 400000) of 16 + 400 bytes;
# BENCHMARKS (default fillrandom,overwrite) may repeat overwrite.
# DB_BENCH_ARGS: more db_bench flags (default none); a flag given twice
# takes its last value, so these override the ones below.
. "$(dirname "$0")/common.sh"
need db_bench rocksdb-tools
VERSIONS="rocksdb-tools $(dpkg-query -W -f='${Version}' rocksdb-tools 2>/dev/null || echo unknown)"
NUM=${NUM:-400000}
SIZE=${SIZE:-512MiB}
BENCHMARKS=${BENCHMARKS:-fillrandom,overwrite}
capture rocksdb "$SIZE" sh -c "db_bench --benchmarks=$BENCHMARKS --db=./db \
    --num=$NUM --key_size=16 --value_size=400 --compression_type=none \
    --write_buffer_size=8388608 --target_file_size_base=8388608 \
    --max_bytes_for_level_base=33554432 --seed=42 --statistics=false ${DB_BENCH_ARGS:-} >db_bench.out 2>&1; \
    rc=\$?; tail -4 db_bench.out >&2; exit \$rc"
