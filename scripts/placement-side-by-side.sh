#!/usr/bin/env bash
# ftlsim's log regime beside SepBIT's own simulator (issue 29, item 6;
# docs/placement.md): the same SepBIT synthetic traces, the same segment
# size, GC threshold and selection, every scheme asked for, both WAs in a
# Markdown table. Not part of CI: the Java side needs Java 11+, Maven and
# Maven Central (scripts/sepbit-java.sh builds and runs it).
#
# Usage:
#   scripts/placement-side-by-side.sh SEPBIT [options]
#
#   SEPBIT  SepBIT's source, as scripts/sepbit-java.sh takes it (a checkout,
#           its trace_replay/, or the `fetch` tool's bare git dir)
#
# Options:
#   --schemes LIST       ftlsim scheme names, comma-separated (default: every
#                        scheme `ftlsim run` accepts, from its error message);
#                        a scheme SepBIT's simulator lacks gets "-" on its side
#   --alphas LIST        Zipf alphas of the traces (default 0,0.8,1.0)
#   --selections LIST    greedy,cost-benefit (default both)
#   --working-set BYTES  the traces' working set (default 268435456, 256 MiB)
#   --written N          bytes written, as a multiple of the working set (default 20)
#   --segment-bytes N    segment = block size (default working set / 100,
#                        rounded to 4 KiB: SepBIT's 512 MiB per 50 GiB)
#   --hot-shift-bytes N  the hot set's reshuffle interval (default segment × 1)
#   --gc-threshold X     (default 0.15)
#   --seed N             the traces' seed (default 42)
#   --work DIR           traces, configs and logs (default /tmp/placement-side-by-side)
#   --java-work DIR      scripts/sepbit-java.sh's build folder, kept between runs
#                        (default /tmp/sepbit-java)
#   --ftlsim BIN         (default target/release/ftlsim)
#   --no-java            ftlsim's column only
#
# Prints the table on stdout (one row per alpha, selection and scheme: both
# WAs, both GC counts, the difference in percent) and keeps every run's JSON
# in WORK/results.jsonl. A failed run prints which on stderr and exits 2.

set -euo pipefail

die() {
    echo "placement-side-by-side: $*" >&2
    exit 2
}

[[ $# -ge 1 ]] || die "usage: $0 SEPBIT [--schemes LIST] [--alphas LIST] [--selections LIST] [--working-set BYTES] [--written N] [--segment-bytes N] [--hot-shift-bytes N] [--gc-threshold X] [--seed N] [--work DIR] [--java-work DIR] [--ftlsim BIN] [--no-java]"
src=$1
shift
schemes=
alphas=0,0.8,1.0
selections=greedy,cost-benefit
working_set=268435456
written=20
segment_bytes=
hot_shift=
threshold=0.15
seed=42
work=/tmp/placement-side-by-side
java_work=/tmp/sepbit-java
ftlsim=target/release/ftlsim
java=1
while [[ $# -gt 0 ]]; do
    case $1 in
    --no-java)
        java=0
        shift
        continue
        ;;
    esac
    [[ $# -ge 2 ]] || die "$1 needs a value"
    case $1 in
    --schemes) schemes=$2 ;;
    --alphas) alphas=$2 ;;
    --selections) selections=$2 ;;
    --working-set) working_set=$2 ;;
    --written) written=$2 ;;
    --segment-bytes) segment_bytes=$2 ;;
    --hot-shift-bytes) hot_shift=$2 ;;
    --gc-threshold) threshold=$2 ;;
    --seed) seed=$2 ;;
    --work) work=$2 ;;
    --java-work) java_work=$2 ;;
    --ftlsim) ftlsim=$2 ;;
    *) die "unknown option $1" ;;
    esac
    shift 2
done
[[ -x $ftlsim ]] || die "$ftlsim: no ftlsim binary (cargo build --release -p ftlsim-cli, or --ftlsim BIN)"
here=$(cd "$(dirname "$0")" && pwd)
[[ $working_set =~ ^[0-9]+$ && $((working_set % 4096)) -eq 0 ]] || die "--working-set: not a multiple of 4096"
[[ -n $segment_bytes ]] || segment_bytes=$((working_set / 100 / 4096 * 4096))
[[ $segment_bytes =~ ^[0-9]+$ && $segment_bytes -ge 4096 && $((segment_bytes % 4096)) -eq 0 ]] ||
    die "--segment-bytes: $segment_bytes is not a positive multiple of 4096"
[[ -n $hot_shift ]] || hot_shift=$segment_bytes
segment_pages=$((segment_bytes / 4096))
ws_pages=$((working_set / 4096))
writes=$((ws_pages * written))

# Every scheme ftlsim knows, from the refusal of an unknown one (so schemes
# added to the list appear here without a change).
if [[ -z $schemes ]]; then
    msg=$("$ftlsim" run "$here/../examples/placement/sepbit.toml" \
        --set ftl.placement_scheme.type=no-such-scheme 2>&1 || true)
    schemes=$(echo "$msg" | grep -o '`[a-z0-9-]*`' | tr -d '`' | grep -v no-such-scheme |
        paste -sd, -)
    [[ -n $schemes ]] || die "could not list ftlsim's schemes from: $msg"
fi

java_name() {
    case $1 in
    nosep) echo NoSep ;; sepgc) echo SepGC ;; dac) echo DAC ;; sfs) echo SFS ;;
    multilog) echo MultiLog ;; eti) echo ETI ;; mq) echo MultiQueue ;; sfr) echo SFR ;;
    fadac) echo FADaC ;; warcip) echo WARCIP ;; sepbit) echo SepBIT ;; fk) echo FK ;;
    *) echo "" ;;
    esac
}

mkdir -p "$work/traces"
results=$work/results.jsonl
: >"$results"
# The device: blocks of one segment, room for the log at the threshold
# (the working set over 1 - t, the open blocks, a margin), the logical space
# the working set; only the log's own pages count, not the device's size.
blocks=$(awk -v w="$ws_pages" -v s="$segment_pages" -v t="$threshold" \
    'BEGIN { printf "%d", (w / (1 - t)) / s * 1.5 + 80 }')
spare=$(awk -v w="$ws_pages" -v b="$blocks" -v s="$segment_pages" \
    'BEGIN { printf "%.6f", 1 - (w + s) / (b * s) }')
config=$work/log.toml
cat >"$config" <<EOF
[device]
page_bytes = 4096
pages_per_block = $segment_pages
blocks = $blocks
spare_factor = $spare

[ftl]
regime = "log"
log_gc_garbage_threshold = $threshold

[ftl.placement_scheme]
type = "nosep"

[workload]
type = "trace"
precondition = "none"
warmup = 0

[workload.trace]
path = "TRACE"
format = "native"
EOF

printf '| α | selection | scheme | ftlsim WA | SepBIT WA | Δ %% | ftlsim GCs | SepBIT GCs |\n'
printf '|---|---|---|---|---|---|---|---|\n'
IFS=, read -r -a alpha_list <<<"$alphas"
IFS=, read -r -a selection_list <<<"$selections"
IFS=, read -r -a scheme_list <<<"$schemes"
for a in "${alpha_list[@]}"; do
    trace=$work/traces/alpha-$a-ws$working_set-x$written-shift$hot_shift-seed$seed.ftlt
    if [[ ! -s $trace ]]; then
        "$ftlsim" trace synth "$here/../examples/sepbit-synthetic.toml" "$trace" \
            --set device.blocks=$((ws_pages * 2 / 256 + 64)) --set workload.zipf_alpha="$a" \
            --set workload.working_set_bytes="$working_set" \
            --set workload.hot_shift_bytes="$hot_shift" --set workload.writes="$writes" \
            --set workload.seed="$seed" 2>"$work/synth.log" ||
            die "trace synth (alpha $a) failed: $(tail -1 "$work/synth.log")"
    fi
    for sel in "${selection_list[@]}"; do
        for s in "${scheme_list[@]}"; do
            ours=$("$ftlsim" run "$config" --json --set ftl.placement_scheme.type="$s" \
                --set ftl.gc_policy="$sel" --set workload.trace.path="$trace" 2>"$work/ftlsim.log") ||
                die "ftlsim ($s, $sel, alpha $a) failed: $(tail -1 "$work/ftlsim.log")"
            our_wa=$(echo "$ours" | sed -n 's/.*"waf": *\([0-9.]*\).*/\1/p')
            our_gcs=$(echo "$ours" | sed -n 's/.*"gc_count": *\([0-9]*\).*/\1/p')
            their_wa=-
            their_gcs=-
            delta=-
            name=$(java_name "$s")
            if [[ $java -eq 1 && -n $name ]]; then
                theirs=$("$here/sepbit-java.sh" "$src" "$trace" --placement "$name" \
                    --selection "$sel" --segment-bytes "$segment_bytes" \
                    --gc-threshold "$threshold" --work "$java_work" --ftlsim "$ftlsim" \
                    --log "$work/java-$s-$sel-$a.log") ||
                    die "SepBIT's simulator ($name, $sel, alpha $a) failed"
                their_wa=$(echo "$theirs" | sed -n 's/.*"wa":\([0-9.]*\).*/\1/p')
                their_gcs=$(echo "$theirs" | sed -n 's/.*"gc_count":\([0-9]*\).*/\1/p')
                delta=$(awk -v o="$our_wa" -v t="$their_wa" 'BEGIN { printf "%+.2f", (o / t - 1) * 100 }')
            fi
            printf '{"alpha":%s,"selection":"%s","scheme":"%s","ftlsim_wa":%s,"ftlsim_gc_count":%s,"sepbit_wa":"%s","sepbit_gc_count":"%s"}\n' \
                "$a" "$sel" "$s" "$our_wa" "$our_gcs" "$their_wa" "$their_gcs" >>"$results"
            printf '| %s | %s | %s | %.4f | %s | %s | %s | %s |\n' "$a" "$sel" "$s" "$our_wa" \
                "$their_wa" "$delta" "$our_gcs" "$their_gcs"
        done
    done
done
