#!/usr/bin/env bash
# Builds the LevelDB reference program of `ftlsim lsm-compare`
# (tools/leveldb-ref/leveldb_ref.cc) against the system's LevelDB
# (Debian: libleveldb-dev 1.23, which scripts/test.sh installs) into
# target/leveldb-ref/leveldb_ref, or into the path given as $1.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/leveldb-ref/leveldb_ref}"
if [ ! -f /usr/include/leveldb/db.h ]; then
    echo "scripts/build-leveldb-ref.sh: /usr/include/leveldb/db.h not found: install libleveldb-dev" >&2
    exit 1
fi
mkdir -p "$(dirname "$out")"
c++ -O2 -std=c++17 -Wall -o "$out" tools/leveldb-ref/leveldb_ref.cc -lleveldb
