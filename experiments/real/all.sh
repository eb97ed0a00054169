#!/usr/bin/env bash
# Every real workload, then the comparison of assigners over their traces.
set -euo pipefail
HERE=$(dirname "$0")
for w in rocksdb sqlite gcc fio-dedupe mixed; do bash "$HERE/$w.sh"; done
bash "$HERE/nodiscard.sh"
. "$HERE/common.sh"
"$FTLSIM" reproduce pcstream-real --traces "$RUN" --out "$RUN/report"
