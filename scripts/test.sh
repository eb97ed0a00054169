#!/usr/bin/env bash
# Every test suite, from a fresh machine: the Rust workspace (unit, property,
# CLI tests), the quick analytical validation, then the Python package built
# into a virtual environment (.venv) and its pytest suite, which includes a
# Dask LocalCluster sweep and the example notebook. `.ci/run` calls this.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v cargo >/dev/null || { echo "cargo not found: install Rust (rustup)" >&2; exit 1; }

# The live device's tests (crates/ftlsim-live) make ext4 and btrfs file
# systems on a loop device, and build.rs compiles the capture library with
# cc: install the Debian packages that are missing
# (CI runs as root; elsewhere the tests that need root skip with a
# message). scripts/live-fio.sh also needs fio; --fs xfs needs xfsprogs;
# the SQLite capture test and experiments/real need sqlite3, and
# experiments/real/rocksdb.sh db_bench (rocksdb-tools), experiments/real/postgres.sh
# PostgreSQL 15 (postgresql-15, below); experiments/real/corpus.sh
# packs the committed corpus's traces with zstd and reads the live run's
# report with jq. The index.html test
# (crates/ftlsim-cli/tests/html_report.rs) renders the page in headless
# chromium, and skips that half without it. `ftlsim lsm-compare`'s test
# builds the LevelDB reference program (tools/leveldb-ref) against
# libleveldb-dev, a library with no binary to look for: its header is.
have() { command -v "$1" >/dev/null || [ -x "/usr/sbin/$1" ] || [ -x "/sbin/$1" ]; }
missing=()
for tool_package in cc:build-essential losetup:mount mkfs.ext4:e2fsprogs mkfs.btrfs:btrfs-progs \
    sqlite3:sqlite3 fio:fio mkfs.xfs:xfsprogs db_bench:rocksdb-tools zstd:zstd jq:jq chromium:chromium; do
    have "${tool_package%%:*}" || missing+=("${tool_package#*:}")
done
[ -f /usr/include/leveldb/db.h ] || missing+=(libleveldb-dev)
# experiments/real/postgres.sh: PostgreSQL 15's server and pgbench, not
# on PATH (Debian keeps them in /usr/lib/postgresql/15/bin).
[ -x /usr/lib/postgresql/15/bin/pgbench ] || missing+=(postgresql-15)
if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "scripts/test.sh: installing ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# ftlsim-py has no Rust tests (its tests are the pytest suite below), and
# leaving it out keeps pyo3's and numpy's features (num-traits/i128, syn's
# extra-traits) out of this build's feature resolution: the libraries and the
# binary resolve exactly as `cargo run --release -p ftlsim-cli` resolved them,
# so the README's main job's build is reused, not rebuilt.
cargo test --workspace --exclude ftlsim-py --release
# The binary the tests just built (the same one `cargo run --release -p
# ftlsim-cli` builds).
target/release/ftlsim validate --quick

scripts/python-env.sh
# shellcheck disable=SC1091
. .venv/bin/activate
FTLSIM_BIN="$PWD/target/release/ftlsim" python -m pytest -q crates/ftlsim-py/tests
