#!/usr/bin/env bash
# A fuzz campaign against the ftlsim binary (docs/fuzzing.md):
#   scripts/fuzz.sh [CASES [SEED]]
# CASES defaults to 5000, SEED to today's date (YYYYMMDD). Failing cases are
# shrunk and written to crates/ftlsim-cli/tests/fuzz_regressions/; the log
# goes to target/fuzz-SEED.log. Other knobs: FTLSIM_FUZZ_JOBS (default: the
# CPU count), FTLSIM_FUZZ_TIMEOUT_S (20), FTLSIM_FUZZ_MEM_MB (4096),
# FTLSIM_FUZZ_REDUCE_S (120 per failure), FTLSIM_FUZZ_BIN (another binary).
set -euo pipefail
cd "$(dirname "$0")/.."
cases="${1:-5000}"
seed="${2:-$(date +%Y%m%d)}"
mkdir -p target
echo "fuzz campaign: $cases cases, seed $seed; log in target/fuzz-$seed.log" >&2
FTLSIM_FUZZ_CASES="$cases" FTLSIM_FUZZ_SEED="$seed" \
    cargo test --release -p ftlsim-cli --test integration -- --include-ignored --nocapture \
    fuzz::fuzz_random_cases 2>&1 | tee "target/fuzz-$seed.log"
