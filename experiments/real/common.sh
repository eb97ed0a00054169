# Shared by the experiments/real scripts: capture one application on the
# live device (ftlsim device run --capture, docs/real-workloads.md).
# Sourced; needs root, /dev/fuse, mkfs.ext4 and a built ftlsim.
#   capture NAME SIZE COMMAND...   → $RUN/NAME.trace (PC-tagged block trace,
#   replay config NAME.trace.toml), $RUN/NAME.cap (capture log),
#   $RUN/NAME.json (the live run's report), $RUN/NAME.log (stderr).
# DISCARD=off mounts without discard (the FTL learns of deletions only on
# overwrite); SUFFIX is appended to NAME (e.g. SUFFIX=-nodiscard).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RUN=${RUN:-$ROOT/out/real}
FTLSIM=${FTLSIM:-$ROOT/target/release/ftlsim}
mkdir -p "$RUN"
[ -x "$FTLSIM" ] || { echo "build ftlsim first: cargo build --release -p ftlsim-cli" >&2; exit 2; }

capture() {
    local name=$1${SUFFIX:-} size=$2
    shift 2
    echo "== $name: capturing on a $size ext4 live device, discard ${DISCARD:-on}" >&2
    "$FTLSIM" device run --size "$size" --fs ext4 --discard "${DISCARD:-on}" \
        --set ftl.streams=9 \
        --record "$RUN/$name.trace" --capture "$RUN/$name.cap" --json -- "$@" \
        > "$RUN/$name.json" 2> "$RUN/$name.log"
    grep '^ftlsim:' "$RUN/$name.log" >&2 || true
}

need() {
    command -v "$1" >/dev/null || { echo "$1 is missing: apt-get install $2" >&2; exit 2; }
}

# The SQLite OLTP script (sqlite.sh, mixed.sh): ROUNDS transactions over
# ROWS accounts (default 40000, about 12 MB of table). The accounts each
# transaction touches are drawn here, by awk seeded with SEED (default 42),
# and written into the script as numbers: SQLite's random() cannot be
# seeded, so the same SEED (and awk) gives the same script. (The padding's
# bytes still come from randomblob(); only its length reaches the device's
# block pattern.)
oltp_sql() {
    local ROUNDS=$1 ROWS=${2:-40000}
    echo "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
    echo "CREATE TABLE acct(id INTEGER PRIMARY KEY, bal INTEGER, pad TEXT);"
    echo "CREATE TABLE hist(id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, amt INTEGER, t TEXT);"
    echo "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<$ROWS)"
    echo "  INSERT INTO acct SELECT x, 1000, hex(randomblob(150)) FROM c;"
    awk -v rounds="$ROUNDS" -v rows="$ROWS" -v seed="${SEED:-42}" 'BEGIN {
        srand(seed)
        for (i = 1; i <= rounds; i++) {
            printf "BEGIN; UPDATE acct SET bal=bal-7 WHERE id=%d;\n", int(rand() * rows)
            printf "UPDATE acct SET bal=bal+7, pad=hex(randomblob(150)) WHERE id=%d;\n", int(rand() * rows)
            printf "INSERT INTO hist(a,b,amt,t) VALUES(%d, %d, 7, hex(randomblob(40)));\n", int(rand() * rows), int(rand() * rows)
            print "COMMIT;"
            if (i % 500 == 0) print "DELETE FROM hist WHERE id < (SELECT max(id) - 2000 FROM hist); PRAGMA wal_checkpoint(TRUNCATE);"
        }
    }'
}
