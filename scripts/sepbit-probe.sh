#!/usr/bin/env bash
# Do ftlsim's placement schemes decide as SepBIT's Java code does? A trace
# through SepBIT's own Log with GC off (scripts/sepbit-probe/Probe.java) and
# through ftlsim's scheme over the same log (the ignored test
# ftl::schemes::java_probe), then the two partitions of the user writes into
# segments compared (the same partition, up to numbering, is the same
# decisions). GC writes are not compared: that needs the log regime.
# Not part of CI: it needs Java and a SepBIT build from scripts/sepbit-java.sh.
#
# Usage:
#   scripts/sepbit-probe.sh CSV SCHEME [--segment-bytes N] [--work DIR]
#
#   CSV     a trace in Alibaba's CSV (volume,W,offset,length,us), e.g. the
#           0.csv that scripts/sepbit-java.sh converts, or
#           `ftlsim trace convert TRACE 0.csv --to alibaba`
#   SCHEME  ftlsim's name: dac | sfs | multilog | eti | mq | sfr | fadac | warcip
#   --segment-bytes N  segment size (default 10485760); 6 classes
#   --work DIR         scripts/sepbit-java.sh's work folder (default
#                      /tmp/sepbit-java), where SepBIT is built
#
# Prints one line: the writes compared and "same" or the first write whose
# segment differs. Exit 0 when the same, 1 when not, 2 on a failed step.

set -euo pipefail

die() {
    echo "sepbit-probe: $*" >&2
    exit 2
}

[[ $# -ge 2 ]] || die "usage: $0 CSV SCHEME [--segment-bytes N] [--work DIR]"
csv=$1
scheme=$2
shift 2
segment_bytes=10485760
work=/tmp/sepbit-java
while [[ $# -gt 0 ]]; do
    [[ $# -ge 2 ]] || die "$1 needs a value"
    case $1 in
    --segment-bytes) segment_bytes=$2 ;;
    --work) work=$2 ;;
    *) die "unknown option $1" ;;
    esac
    shift 2
done
case $scheme in
dac) java_name=DAC ;;
sfs) java_name=SFS ;;
multilog) java_name=MultiLog ;;
eti) java_name=ETI ;;
mq) java_name=MultiQueue ;;
sfr) java_name=SFR ;;
fadac) java_name=FADaC ;;
warcip) java_name=WARCIP ;;
*) die "$scheme: not one of dac sfs multilog eti mq sfr fadac warcip" ;;
esac
[[ -f $csv ]] || die "$csv: no such trace"
[[ $segment_bytes =~ ^[0-9]+$ && $((segment_bytes % 4096)) -eq 0 && $segment_bytes -gt 0 ]] ||
    die "--segment-bytes: $segment_bytes is not a positive multiple of 4096"
build=$work/trace_replay
[[ -f $build/classpath.txt && -d $build/target/classes ]] ||
    die "no SepBIT build in $work: run scripts/sepbit-java.sh once"
command -v javac >/dev/null || die "javac is not installed"

here=$(cd "$(dirname "$0")/.." && pwd)
probe=$work/probe
rm -rf "$probe/run"
mkdir -p "$probe/classes" "$probe/run/segments" "$probe/run/indexmap"
classpath="$build/target/classes:$(cat "$build/classpath.txt")"
javac -cp "$classpath" -d "$probe/classes" "$here/scripts/sepbit-probe/Probe.java" ||
    die "step javac failed"

# The largest byte address sizes SepBIT's maps (its property file's third
# column); ftlsim's logical space is the pages up to it.
max_byte=$(awk -F, '$2 == "W" { e = $3 + $4; if (e > m) m = e } END { printf "%d", m }' "$csv")
pages=$(awk -F, '$2 == "W" { p += int(($3 + $4 + 4095) / 4096) - int($3 / 4096) } END { printf "%d", p }' "$csv")
segment_pages=$((segment_bytes / 4096))

java -Xmx4g -cp "$probe/classes:$classpath" gcsimulator.Probe "$csv" "$java_name" 6 \
    "$segment_bytes" "$max_byte" "$probe/run/" "$probe/java.txt" >"$probe/java.log" 2>&1 ||
    die "step java failed; see $probe/java.log"
(cd "$here" && PROBE_TRACE=$(realpath "$csv") PROBE_SCHEME=$scheme PROBE_OUT=$probe/ftlsim.txt \
    PROBE_LOGICAL_PAGES=$(((max_byte + 4095) / 4096)) PROBE_SEGMENT_PAGES=$segment_pages \
    PROBE_SEGMENTS=$((pages / segment_pages + 16)) \
    cargo test --release -q -p ftlsim --lib java_probe -- --ignored) >"$probe/ftlsim.log" 2>&1 ||
    die "step ftlsim failed; see $probe/ftlsim.log"

paste -d' ' "$probe/java.txt" "$probe/ftlsim.txt" | awk -v scheme="$scheme" '
    NF != 2 { printf "%s: the two runs wrote different numbers of writes (line %d)\n", scheme, NR; bad = 1; exit 1 }
    {
        if (($1 in to) && to[$1] != $2 || ($2 in from) && from[$2] != $1) {
            printf "%s: write %d differs: SepBIT segment %s, ftlsim segment %s\n", scheme, NR, $1, $2
            bad = 1
            exit 1
        }
        to[$1] = $2; from[$2] = $1
    }
    END { if (!bad) printf "%s: same segments for all %d user writes\n", scheme, NR }'
