#!/usr/bin/env bash
# The Python package's overheads (README, "Python"): ftlsim.run against the
# binary, Device.write against native, sweep scaling with cores.
# Usage: scripts/py-bench.sh [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p ftlsim-cli
scripts/python-env.sh
# shellcheck disable=SC1091
. .venv/bin/activate
FTLSIM_BIN="$PWD/target/release/ftlsim" python crates/ftlsim-py/bench/bench.py "$@"
