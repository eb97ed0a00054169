#!/usr/bin/env bash
# Every test suite, from a fresh machine: the Rust workspace (unit, property,
# CLI tests), the quick analytical validation, then the Python package built
# into a virtual environment (.venv) and its pytest suite, which includes a
# Dask LocalCluster sweep and the example notebook. `.ci/run` calls this.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v cargo >/dev/null || { echo "cargo not found: install Rust (rustup)" >&2; exit 1; }
cargo test --workspace --release
cargo run --release -p ftlsim-cli -- validate --quick

scripts/python-env.sh
# shellcheck disable=SC1091
. .venv/bin/activate
FTLSIM_BIN="$PWD/target/release/ftlsim" python -m pytest -q crates/ftlsim-py/tests
