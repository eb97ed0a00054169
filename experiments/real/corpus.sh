#!/usr/bin/env bash
# The committed corpus (traces/real/, docs/real-workloads.md): each
# application captured on an aged 256 or 512 MiB ext4 (or xfs) live device
# mounted without discard (AGE_PCT % of the device written as small files
# first, about half of them deleted; common.sh's age_sh), each trace written
# to traces/real as NAME.ftlt.zst with NAME.provenance.toml beside it. Needs
# root, /dev/fuse, e2fsprogs, xfsprogs, zstd, jq, fio, sqlite3,
# rocksdb-tools (db_bench), postgresql-15 and build-essential
# (scripts/test.sh installs them as root), and a built ftlsim. ONLY="fio
# sqlite" captures just those (fio, fio-zipf, sqlite, sqlite-journal,
# rocksdb, rocksdb-heavy, mixed-rocksdb-gcc, mixed-sqlite-gcc, postgres,
# sqlite-xfs, source-versions, gcc; mixed only when named). About 16
# minutes.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
export DISCARD=off SUFFIX=-aged CORPUS=${CORPUS:-$(cd "$HERE/../.." && pwd)/traces/real}
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
if want fio; then
    # fio with 30 % duplicate pages (the Coldmap paper's fio), random 4 KiB
    # overwrites of an 80 MiB file among the aging's survivors.
    CAPTURE_ENV="SIZE=256MiB AGE_PCT=80 FIO_SIZE=80M IO_SIZE=1G DEDUPE=30" SCRIPT=fio-dedupe.sh \
        SIZE=256MiB AGE_PCT=80 FIO_SIZE=80M IO_SIZE=1G DEDUPE=30 bash "$HERE/fio-dedupe.sh"
fi
if want fio-zipf; then
    # The same with skewed offsets (zipf 1.2): a hot set inside the file.
    CAPTURE_ENV="SIZE=256MiB AGE_PCT=80 FIO_SIZE=80M IO_SIZE=1G DEDUPE=30 DIST=zipf:1.2" SCRIPT=fio-dedupe.sh \
        SUFFIX=-zipf-aged SIZE=256MiB AGE_PCT=80 FIO_SIZE=80M IO_SIZE=1G DEDUPE=30 DIST=zipf:1.2 \
        bash "$HERE/fio-dedupe.sh"
fi
if want sqlite; then
    CAPTURE_ENV="SIZE=256MiB AGE_PCT=70 ROWS=200000 ROUNDS=30000" SCRIPT=sqlite.sh \
        SIZE=256MiB AGE_PCT=70 ROWS=200000 ROUNDS=30000 bash "$HERE/sqlite.sh"
fi
if want sqlite-journal; then
    # The same transactions with a rollback journal (journal_mode=PERSIST):
    # each commit rewrites the database's pages in place.
    CAPTURE_ENV="SIZE=256MiB AGE_PCT=70 ROWS=200000 ROUNDS=20000 JOURNAL=PERSIST" SCRIPT=sqlite.sh \
        SUFFIX=-journal-aged SIZE=256MiB AGE_PCT=70 ROWS=200000 ROUNDS=20000 JOURNAL=PERSIST \
        bash "$HERE/sqlite.sh"
fi
if want rocksdb; then
    # RocksDB's data dies a file at a time, and ext4 gives its SSTs the
    # large free extents, not the aging's holes: WAF 1.000 here. Aged
    # harder (AGE_PCT 55 with NUM=120000, 70 with 150000, 100 with 80000)
    # db_bench ran out of space.
    B=fillrandom,overwrite,overwrite,overwrite,overwrite
    CAPTURE_ENV="SIZE=256MiB AGE_PCT=50 NUM=80000 BENCHMARKS=$B" SCRIPT=rocksdb.sh \
        SIZE=256MiB AGE_PCT=50 NUM=80000 BENCHMARKS=$B bash "$HERE/rocksdb.sh"
fi
if want rocksdb-heavy; then
    # RocksDB heavy enough to make GC copy: a 512 MiB device filled to the
    # brim with small aging files (4-48 KiB, AGE_UNIT_PAGES=1) of which
    # half are deleted, so ext4 has only small holes to give the SSTs and
    # each SST is spread over many of them; 4 MiB memtables and SSTs, 16 MiB
    # level base, 100 000 keys, fillrandom + 8 x overwrite. With the
    # aging's files at their default 16-192 KiB the same runs replayed at
    # WAF 1.10-1.34 (docs/real-workloads.md).
    B=fillrandom$(printf ',overwrite%.0s' 1 2 3 4 5 6 7 8)
    A="--write_buffer_size=4194304 --target_file_size_base=4194304 --max_bytes_for_level_base=16777216"
    CAPTURE_ENV="SIZE=512MiB AGE_PCT=100 AGE_UNIT_PAGES=1 NUM=100000 BENCHMARKS=$B DB_BENCH_ARGS=$A" SCRIPT=rocksdb.sh \
        SUFFIX=-heavy-aged SIZE=512MiB AGE_PCT=100 AGE_UNIT_PAGES=1 NUM=100000 BENCHMARKS=$B DB_BENCH_ARGS="$A" \
        bash "$HERE/rocksdb.sh"
fi
if want mixed-rocksdb-gcc; then
    # The PCStream paper's first mix, RocksDB + GCC, started together on
    # the device of rocksdb-heavy (512 MiB, 4-48 KiB aging files, half
    # deleted): db_bench with 100 000 keys, fillrandom + 6 x overwrite, and
    # three GCC builds of zstd's lib/. db_bench ends within the first
    # build; the builds go on alone.
    B=fillrandom$(printf ',overwrite%.0s' 1 2 3 4 5 6)
    A="--write_buffer_size=4194304 --target_file_size_base=4194304 --max_bytes_for_level_base=16777216"
    CAPTURE_ENV="SIZE=512MiB AGE_PCT=100 AGE_UNIT_PAGES=1 PARTS=rocksdb gcc NUM=100000 BENCHMARKS=$B DB_BENCH_ARGS=$A GCC_ROUNDS=3" \
        SCRIPT=mixed.sh SUFFIX=-rocksdb-gcc-aged SIZE=512MiB AGE_PCT=100 AGE_UNIT_PAGES=1 PARTS="rocksdb gcc" NUM=100000 \
        BENCHMARKS=$B DB_BENCH_ARGS="$A" GCC_ROUNDS=3 bash "$HERE/mixed.sh"
fi
if want mixed-sqlite-gcc; then
    # The PCStream paper's second mix, SQLite + GCC, started together on
    # the device of rocksdb-heavy (512 MiB, 4-48 KiB aging files, half
    # deleted): the SQLite OLTP script of sqlite-xfs (WAL, 300 000
    # accounts, 12 000 transactions) on ext4, and three GCC builds of
    # zstd's lib/.
    CAPTURE_ENV="SIZE=512MiB AGE_PCT=100 AGE_UNIT_PAGES=1 PARTS=sqlite gcc ROWS=300000 ROUNDS=12000 GCC_ROUNDS=3" \
        SCRIPT=mixed.sh SUFFIX=-sqlite-gcc-aged SIZE=512MiB AGE_PCT=100 AGE_UNIT_PAGES=1 PARTS="sqlite gcc" \
        ROWS=300000 ROUNDS=12000 GCC_ROUNDS=3 bash "$HERE/mixed.sh"
fi
if want postgres; then
    # PostgreSQL 15, pgbench TPC-B-like: scale 6 (600 000 accounts), 4
    # clients x 2 500 transactions, the data directory on the device of
    # rocksdb-heavy (512 MiB, 4-48 KiB aging files, half deleted; at 256
    # MiB, aged 50-70 %, pgbench -i ran out of space).
    CAPTURE_ENV="SIZE=512MiB AGE_PCT=100 AGE_UNIT_PAGES=1 SCALE=6 CLIENTS=4 TXNS=2500" SCRIPT=postgres.sh \
        SIZE=512MiB AGE_PCT=100 AGE_UNIT_PAGES=1 SCALE=6 CLIENTS=4 TXNS=2500 bash "$HERE/postgres.sh"
fi
if want sqlite-xfs; then
    # The SQLite OLTP script on xfs (FS=xfs; mkfs.xfs 6.1 makes nothing
    # under 300 MB, so the 512 MiB device of rocksdb-heavy): 300 000
    # accounts, 12 000 transactions.
    CAPTURE_ENV="FS=xfs SIZE=512MiB AGE_PCT=100 AGE_UNIT_PAGES=1 ROWS=300000 ROUNDS=12000" SCRIPT=sqlite.sh \
        SUFFIX=-xfs-aged FS=xfs SIZE=512MiB AGE_PCT=100 AGE_UNIT_PAGES=1 ROWS=300000 ROUNDS=12000 bash "$HERE/sqlite.sh"
fi
# Only when asked for (ONLY=mixed): RocksDB + SQLite, not in the corpus.
# On the aged device the tries of 2026-11-27, with db_bench's default 64
# MiB memtables and SSTs, either stayed light (WAF 1.047) or, heavier,
# stopped with SQLite's "database or disk is full" (AGE_PCT 50-70).
# mixed.sh now gives db_bench rocksdb.sh's 8 MiB (docs/real-workloads.md
# says how this one then went).
if [[ " ${ONLY:-} " == *" mixed "* ]]; then
    # RocksDB and SQLite at once (the PCStream paper's mixes run two
    # applications together).
    B=fillrandom,overwrite,overwrite,overwrite
    CAPTURE_ENV="SIZE=256MiB AGE_PCT=50 NUM=50000 BENCHMARKS=$B ROWS=100000 ROUNDS=40000" SCRIPT=mixed.sh \
        SIZE=256MiB AGE_PCT=50 NUM=50000 BENCHMARKS=$B ROWS=100000 ROUNDS=40000 bash "$HERE/mixed.sh"
fi
if want source-versions; then
    # Natural duplication (Coldmap on real content): the 226 first-parent
    # versions of ftlsim's own tree up to a pinned commit, each unpacked and
    # backed up (tar | gzip -1), the newest 16 of both kept; unchanged files
    # repeat their pages. Aged 60 %, so that all of it fits: 200 MB in use
    # at the end (du) of the 256 MiB file system.
    V=bb793dabf9e510edc3e1656e8668b5e84639a50f
    CAPTURE_ENV="SIZE=256MiB AGE_PCT=60 LAST=$V STEP=1 KEEP=16" SCRIPT=source-versions.sh \
        SIZE=256MiB AGE_PCT=60 LAST=$V STEP=1 KEEP=16 bash "$HERE/source-versions.sh"
fi
if want gcc; then
    CAPTURE_ENV="SIZE=256MiB AGE_PCT=80 ROUNDS=8" SCRIPT=gcc.sh \
        SIZE=256MiB AGE_PCT=80 ROUNDS=8 bash "$HERE/gcc.sh"
fi
