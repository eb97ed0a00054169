#!/usr/bin/env bash
# Remakes the committed corpus (traces/real/, docs/real-workloads.md): builds
# ftlsim and runs experiments/real/corpus.sh, which captures each
# application on an aged live device and writes NAME.ftlt.zst with its
# provenance record. Needs root, /dev/fuse and the Debian packages named in
# corpus.sh's header (scripts/test.sh installs them as root). Rewrites the
# committed traces: commit a re-made trace together with its record.
#   bash scripts/remake-corpus.sh                  # all of them, about 16 minutes
#   ONLY="fio sqlite" bash scripts/remake-corpus.sh  # just those
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
cargo build --release -p ftlsim-cli
exec bash experiments/real/corpus.sh "$@"
