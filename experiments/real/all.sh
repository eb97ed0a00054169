#!/usr/bin/env bash
# Every real workload (the uncommitted captures in $RUN), then the comparison
# of assigners over their traces (experiments/pcstream-real-local.toml).
# The committed corpus is experiments/real/corpus.sh.
set -euo pipefail
HERE=$(dirname "$0")
for w in rocksdb sqlite gcc fio-dedupe mixed; do bash "$HERE/$w.sh"; done
bash "$HERE/nodiscard.sh"
. "$HERE/common.sh"
"$FTLSIM" reproduce "$HERE/../pcstream-real-local.toml" --traces "$RUN" --out "$RUN/report"
