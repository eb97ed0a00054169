#!/usr/bin/env bash
# Two applications at once on one live device: RocksDB db_bench and the
# SQLite OLTP script, each in its own directory.
. "$(dirname "$0")/common.sh"
need db_bench rocksdb-tools
need sqlite3 sqlite3
NUM=${NUM:-200000}
ROUNDS=${ROUNDS:-1500}
SIZE=${SIZE:-512MiB}
SQL=$RUN/mixed-oltp.sql
oltp_sql "$ROUNDS" > "$SQL"
capture mixed "$SIZE" sh -c "mkdir r s; (cd r && db_bench --benchmarks=fillrandom,overwrite --db=./db \
    --num=$NUM --key_size=16 --value_size=400 --compression_type=none --seed=42 >db_bench.out 2>&1) &
    (cd s && sqlite3 oltp.db < '$SQL' >/dev/null); wait"
