#!/usr/bin/env bash
# Applications at once on one live device (the PCStream paper's mixes run
# two together: RocksDB + GCC, SQLite + GCC), each in its own directory,
# all started together; the capture fails if any of them fails.
# PARTS (default "rocksdb sqlite") names them:
#   rocksdb: db_bench as rocksdb.sh runs it (8 MiB memtables and SSTs,
#            32 MiB level base; DB_BENCH_ARGS overrides them), NUM keys,
#            BENCHMARKS (default fillrandom,overwrite);
#   sqlite:  the OLTP script of sqlite.sh, ROUNDS transactions over ROWS
#            accounts (sqlite3 -bail: it stops at its first error,
#            "database or disk is full" included);
#   gcc:     GCC_ROUNDS (default 3) builds of SRC as gcc.sh runs them.
# Until 2026-11-27 db_bench ran here with its default 64 MiB memtables and
# SSTs, which on an aged 256 MiB device left SQLite no room.
. "$(dirname "$0")/common.sh"
PARTS=${PARTS:-rocksdb sqlite}
BENCHMARKS=${BENCHMARKS:-fillrandom,overwrite}
NUM=${NUM:-200000}
ROUNDS=${ROUNDS:-1500}
SIZE=${SIZE:-512MiB}
VERSIONS=""
# The driver: each part in the background in its own directory, then a
# wait on each; its exit status is 1 if any part failed (the others are
# let finish, so the trace holds whole runs).
DRIVER=$RUN/mixed-run.sh
{
    echo 'failed=0'
    for part in $PARTS; do
        case $part in
        rocksdb)
            need db_bench rocksdb-tools
            VERSIONS="$VERSIONS${VERSIONS:+; }rocksdb-tools $(dpkg-query -W -f='${Version}' rocksdb-tools 2>/dev/null || echo unknown)"
            echo "mkdir r && (cd r && exec db_bench --benchmarks=$BENCHMARKS --db=./db --num=$NUM --key_size=16" \
                "--value_size=400 --compression_type=none --write_buffer_size=8388608 --target_file_size_base=8388608" \
                "--max_bytes_for_level_base=33554432 --seed=42 --statistics=false ${DB_BENCH_ARGS:-} >db_bench.out 2>&1) &" ;;
        sqlite)
            need sqlite3 sqlite3
            VERSIONS="$VERSIONS${VERSIONS:+; }sqlite3 $(sqlite3 --version | cut -d" " -f1)"
            oltp_sql "$ROUNDS" "${ROWS:-40000}" > "$RUN/mixed-oltp.sql"
            echo "mkdir s && (cd s && exec sqlite3 -bail oltp.db < '$RUN/mixed-oltp.sql' >/dev/null) &" ;;
        gcc)
            need gcc build-essential
            need make build-essential
            SRC=${SRC:-$(gcc_default_src)}
            [ -d "$SRC" ] || { echo "no C code base: set SRC (zstd-sys's zstd/lib is the default)" >&2; exit 2; }
            VERSIONS="$VERSIONS${VERSIONS:+; }$(gcc --version | head -1); $(make --version | head -1); source $SRC"
            gcc_build_sh "${GCC_ROUNDS:-3}" "$SRC" > "$RUN/mixed-gcc-build.sh"
            echo "mkdir g && (cd g && exec sh '$RUN/mixed-gcc-build.sh' >/dev/null) &" ;;
        *) echo "PARTS: unknown part $part (rocksdb, sqlite or gcc)" >&2; exit 2 ;;
        esac
        echo "pid_$part=\$!"
    done
    for part in $PARTS; do
        echo "wait \$pid_$part || { echo \"mixed: $part failed (exit \$?)\" >&2; failed=1; }"
    done
    echo '[ ! -f r/db_bench.out ] || tail -n 3 r/db_bench.out >&2'
    echo 'exit $failed'
} > "$DRIVER"
capture mixed "$SIZE" sh "$DRIVER"
