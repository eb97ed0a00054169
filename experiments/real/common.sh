# Shared by the experiments/real scripts: capture one application on the
# live device (ftlsim device run --capture, docs/real-workloads.md).
# Sourced; needs root, /dev/fuse, mkfs.ext4 (mkfs.xfs with FS=xfs) and a
# built ftlsim.
#   capture NAME SIZE COMMAND...   → $RUN/NAME.trace (PC-tagged block trace,
#   replay config NAME.trace.toml), $RUN/NAME.cap (capture log),
#   $RUN/NAME.json (the live run's report), $RUN/NAME.log (stderr).
# DISCARD=off mounts without discard (the FTL learns of deletions only on
# overwrite); SUFFIX is appended to NAME (e.g. SUFFIX=-nodiscard); FS
# names the file system (default ext4; xfs also works with --capture).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RUN=${RUN:-$ROOT/out/real}
FTLSIM=${FTLSIM:-$ROOT/target/release/ftlsim}
mkdir -p "$RUN"
[ -x "$FTLSIM" ] || { echo "build ftlsim first: cargo build --release -p ftlsim-cli" >&2; exit 2; }

capture() {
    local name=$1${SUFFIX:-} size=$2
    shift 2
    echo "== $name: capturing on a $size ${FS:-ext4} live device, discard ${DISCARD:-on}, aged ${AGE_PCT:-0} %" >&2
    local start=$SECONDS
    local cmd=("$@")
    if [ "${AGE_PCT:-0}" != 0 ]; then
        cmd=(sh -c "$(age_sh "$size")"' && exec "$@"' age "$@")
    fi
    "$FTLSIM" device run --size "$size" --fs "${FS:-ext4}" --discard "${DISCARD:-on}" \
        --set ftl.streams=9 \
        --record "$RUN/$name.trace" --capture "$RUN/$name.cap" --json -- "${cmd[@]}" \
        > "$RUN/$name.json" 2> "$RUN/$name.log"
    grep '^ftlsim:' "$RUN/$name.log" >&2 || true
    CAPTURE_SECONDS=$((SECONDS - start))
    if [ -n "${CORPUS:-}" ]; then
        corpus_add "$name" "$size" "$*"
    fi
}

# Aging (AGE_PCT, a percentage of the device; 0 = none): before the
# application starts, awk writes files of 16-192 KiB (sizes drawn with SEED)
# until AGE_PCT % of the device is written (AGE_PCT=100: until the file
# system is full, so that all its free space afterwards is the holes the
# deletions leave; awk's "no space" is then expected), `sync` puts them on
# the device, then about half of them, drawn with SEED + 1 (not SEED: awk's
# rand() would repeat the size draws and delete the small files), are
# deleted. On ext4 mounted
# without discard the FTL still holds the deleted files' pages as valid
# until their LBAs are written again, and the survivors stay live to the
# end, interleaved with the holes the application's files will reuse: the
# device must copy live data in GC, as an SSD that has been in use does.
# The aging is part of the command, so it is in the trace; its pages carry
# no PC (awk writes through stdio, which the capture library does not see),
# like data on a used drive that some other program wrote long before. Each
# 4 KiB line names its file and page, so no two aging pages are alike.
# AGE_UNIT_PAGES (default 4) scales the file sizes: files of 1-12 units of
# that many pages (1: 4-48 KiB, smaller holes that split the application's
# files across many of them); AGE_DELETE_PCT (default 50) is the share of
# the files deleted. The defaults give the same files and deletions as
# before the two existed.
age_sh() {
    local bytes
    bytes=$(numfmt --from=iec-i "${1%B}")
    local unit=${AGE_UNIT_PAGES:-4}
    local files=$((bytes * AGE_PCT / 100 / (unit * 26624)))
    cat <<AGE
mkdir age && { awk -v n=$files -v seed=${SEED:-42} 'BEGIN {
    srand(seed); pad = sprintf("%4077s", ""); gsub(/ /, "a", pad)
    for (i = 0; i < n; i++) {
        f = sprintf("age/%05d", i); pages = $unit * (1 + int(rand() * 12))
        for (j = 0; j < pages; j++) printf "%08d %08d %s\\n", i, j, pad > f
        close(f)
    }
}' || [ "$AGE_PCT" -ge 100 ]; } && sync && ls age | awk -v seed=$((${SEED:-42} + 1)) -v del=${AGE_DELETE_PCT:-50} 'BEGIN { srand(seed) } rand() * 100 < del' | (cd age && xargs rm -f)
AGE
}

# CORPUS=DIR (traces/real for the committed corpus): after the capture, the
# trace goes to DIR/NAME.ftlt.zst (zstd -19) with DIR/NAME.provenance.toml
# beside it: how it was made, and the size and sha256 the loader checks
# (`ftlsim reproduce` refuses a corpus trace that does not match).
corpus_add() {
    local name=$1 size=$2 command=$3
    local out=$CORPUS/$name.ftlt.zst
    mkdir -p "$CORPUS"
    zstd -q -19 -f "$RUN/$name.trace" -o "$out"
    local sha bytes
    sha=$(sha256sum "$out" | cut -d' ' -f1)
    bytes=$(stat -c %s "$out")
    # The report is the last line of NAME.json: the command's own stdout
    # (sqlite3 prints `wal`) comes before it.
    local j=$RUN/$name.json
    report() { tail -n 1 "$j" | jq "$1"; }
    q() { sed 's/\\/\\\\/g; s/"/\\"/g' <<< "$1"; }
    {
        echo "# How $name.ftlt.zst was made (experiments/real/common.sh writes this)."
        echo "[trace]"
        echo "file = \"$name.ftlt.zst\""
        echo "bytes = $bytes"
        echo "sha256 = \"$sha\""
        echo "format = \"native, zstd -19\""
        echo ""
        echo "[capture]"
        echo "script = \"experiments/real/${SCRIPT:-$(basename "$0")}\""
        echo "command = \"$(q "$command")\""
        echo "environment = \"$(q "${CAPTURE_ENV:-}")\""
        echo "seed = ${SEED:-42}"
        echo "date = \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\""
        echo "seconds = $CAPTURE_SECONDS"
        echo "ftlsim = \"$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)\""
        echo "kernel = \"$(uname -r)\""
        echo "software = \"$(q "${VERSIONS:-}")\""
        echo ""
        echo "[device]"
        echo "size = \"$size\""
        echo "file_system = \"$(fs_version)\""
        echo "discard = \"${DISCARD:-on}\""
        echo "page_bytes = 4096"
        echo "logical_pages = $(report .logical_pages)"
        echo "physical_pages = $(report .physical_pages)"
        echo "spare_factor = $(report .spare_factor)"
        echo "aging = \"$(aging_text)\""
        echo "live_waf = $(report .waf)"
    } > "$CORPUS/$name.provenance.toml"
    echo "== $name: $(du -h "$out" | cut -f1) in $CORPUS, ${CAPTURE_SECONDS}s" >&2
}

# The file system and its mkfs's version, for the provenance record.
fs_version() {
    case ${FS:-ext4} in
        ext4) echo "ext4 ($(mkfs.ext4 -V 2>&1 | head -1))" ;;
        xfs) echo "xfs ($(mkfs.xfs -V 2>&1 | head -1))" ;;
        *) echo "${FS}" ;;
    esac
}

# The aging as the provenance record states it (the defaults read as
# before AGE_UNIT_PAGES and AGE_DELETE_PCT existed).
aging_text() {
    if [ "${AGE_PCT:-0}" = 0 ]; then
        echo none
        return
    fi
    local unit=${AGE_UNIT_PAGES:-4} del=${AGE_DELETE_PCT:-50} deleted
    if [ "$del" = 50 ]; then deleted="about half deleted"; else deleted="about $del % deleted"; fi
    echo "awk files of $((unit * 4))-$((unit * 48)) KiB up to $AGE_PCT % of the device, synced, $deleted (seed ${SEED:-42})"
}

need() {
    command -v "$1" >/dev/null || { echo "$1 is missing: apt-get install $2" >&2; exit 2; }
}
if [ -n "${CORPUS:-}" ]; then
    need zstd zstd
    need jq jq
fi

# The SQLite OLTP script (sqlite.sh, mixed.sh): ROUNDS transactions over
# ROWS accounts (default 40000, about 12 MB of table), in journal mode
# JOURNAL (default WAL; PERSIST: a rollback journal, pages updated in the
# database file at each commit; the WAL checkpoints are then no-ops). The accounts each
# transaction touches are drawn here, by awk seeded with SEED (default 42),
# and written into the script as numbers: SQLite's random() cannot be
# seeded, so the same SEED (and awk) gives the same script. (The padding's
# bytes still come from randomblob(); only its length reaches the device's
# block pattern.)
oltp_sql() {
    local ROUNDS=$1 ROWS=${2:-40000}
    echo "PRAGMA journal_mode=${JOURNAL:-WAL}; PRAGMA synchronous=FULL;"
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

# The GCC build script (gcc.sh, mixed.sh): copies the C code base SRC into
# ./src and builds it with make -j2 ROUNDS times, touching a different third
# of the sources before each rebuild (make decides what to rebuild).
gcc_build_sh() {
    local ROUNDS=$1 SRC=$2
    cat <<SCRIPT
set -e
cp -r '$SRC' src
cd src
files=\$(find . -name '*.c' | sort)
n=\$(echo "\$files" | wc -l)
cat > Makefile.ftlsim <<'MK'
SRCS := \$(shell find . -name '*.c' | sort)
OBJS := \$(SRCS:.c=.o)
lib.a: \$(OBJS)
	ar rcs \$@ \$^
%.o: %.c
	gcc -O1 -g -c -I. -Icommon -DZSTD_MULTITHREAD=0 -DZSTD_DISABLE_ASM -o \$@ \$<
MK
for r in \$(seq 1 $ROUNDS); do
    make -s -j2 -f Makefile.ftlsim lib.a
    sleep 1
    # A third of the sources, a different third each round.
    echo "\$files" | awk -v r=\$r 'NR % 3 == r % 3' | xargs touch
done
ls -la lib.a
SCRIPT
}

# The default C code base for the GCC builds: zstd's lib/ (C, ~60 files)
# from the zstd-sys crate in the cargo registry (the workspace depends on
# it, so it is there offline).
gcc_default_src() {
    ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/zstd-sys-*/zstd/lib 2>/dev/null | head -1
}
