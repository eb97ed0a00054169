#!/usr/bin/env bash
# Two applications at once on one live device: RocksDB db_bench and the
# SQLite OLTP script, each in its own directory. NUM keys, BENCHMARKS
# (default fillrandom,overwrite), ROUNDS transactions over ROWS accounts.
. "$(dirname "$0")/common.sh"
need db_bench rocksdb-tools
need sqlite3 sqlite3
VERSIONS="rocksdb-tools $(dpkg-query -W -f='${Version}' rocksdb-tools 2>/dev/null || echo unknown); sqlite3 $(sqlite3 --version | cut -d" " -f1)"
BENCHMARKS=${BENCHMARKS:-fillrandom,overwrite}
NUM=${NUM:-200000}
ROUNDS=${ROUNDS:-1500}
SIZE=${SIZE:-512MiB}
SQL=$RUN/mixed-oltp.sql
oltp_sql "$ROUNDS" "${ROWS:-40000}" > "$SQL"
# Either application failing fails the capture (sqlite3 -bail stops at the
# first error, "database or disk is full" included).
capture mixed "$SIZE" sh -c "mkdir r s; (cd r && db_bench --benchmarks=$BENCHMARKS --db=./db \
    --num=$NUM --key_size=16 --value_size=400 --compression_type=none --seed=42 >db_bench.out 2>&1) &
    r=\$!; (cd s && sqlite3 -bail oltp.db < '$SQL' >/dev/null) || { kill \$r; wait \$r; exit 1; }; wait \$r"
