#!/usr/bin/env bash
# SepBIT's own simulator (fallfish/sepbit, trace_replay/, Java) on a trace
# ftlsim wrote, for comparison with ftlsim (issue 29, docs/placement.md).
# Not part of CI: it needs Java 11+, Maven and Maven Central.
#
# Usage:
#   scripts/sepbit-java.sh SEPBIT TRACE [options]
#
#   SEPBIT  a checkout of fallfish/sepbit, its trace_replay/ folder, or a
#           bare git dir of it (the `fetch` tool's /work/.mirror/.../repo)
#   TRACE   any trace ftlsim reads (e.g. from `ftlsim trace synth`); its
#           reads and writes become SepBIT's input, as volume 0
#
# Options (SepBIT's names in brackets):
#   --placement NAME     NoSep | SepGC | DAC | SFS | MultiLog | ETI | MultiQueue
#                        | SFR | FADaC | WARCIP | SepBIT | FK  (default SepBIT)
#                        [--setSeparateMethod]; FK gets an oracle from
#                        `ftlsim trace lifespans --sepbit`
#   --selection NAME     greedy | cost-benefit (default greedy) [--selectionAlgorithm]
#   --segment-bytes N    segment size in bytes (default 536870912) [--setSegmentSize]
#   --gc-threshold X     GC when the garbage proportion exceeds X (default 0.15)
#                        [--setSystemGarbageProportionThreshold]
#   --classes N          open segments (classes), 6 as in SepBIT's runs [--setNumOpenSegments]
#   --work DIR           build and scratch folder (default /tmp/sepbit-java)
#   --ftlsim BIN         the ftlsim binary (default target/release/ftlsim, from the
#                        repository root)
#   --log FILE           keep the simulator's own output there
#
# Prints one line of JSON: {"placement", "selection", "segment_bytes",
# "gc_threshold", "classes", "wa", "gc_count", "user_write_bytes",
# "storage_write_bytes", "seconds"}. Any failure prints which step failed
# on stderr and exits non-zero.

set -euo pipefail

die() {
    echo "sepbit-java: $*" >&2
    exit 2
}

[[ $# -ge 2 ]] || die "usage: $0 SEPBIT TRACE [--placement NAME] [--selection greedy|cost-benefit] [--segment-bytes N] [--gc-threshold X] [--classes N] [--work DIR] [--ftlsim BIN] [--log FILE]"
src=$1
trace=$2
shift 2
placement=SepBIT
selection=greedy
segment_bytes=536870912
gc_threshold=0.15
classes=6
work=/tmp/sepbit-java
ftlsim=target/release/ftlsim
log=
while [[ $# -gt 0 ]]; do
    [[ $# -ge 2 ]] || die "$1 needs a value"
    case $1 in
    --placement) placement=$2 ;;
    --selection) selection=$2 ;;
    --segment-bytes) segment_bytes=$2 ;;
    --gc-threshold) gc_threshold=$2 ;;
    --classes) classes=$2 ;;
    --work) work=$2 ;;
    --ftlsim) ftlsim=$2 ;;
    --log) log=$2 ;;
    *) die "unknown option $1" ;;
    esac
    shift 2
done

case $selection in
greedy) algorithm=Greedy ;;
cost-benefit) algorithm=CostBenefit ;;
*) die "--selection: $selection is not greedy or cost-benefit" ;;
esac
case $placement in
NoSep | SepGC | DAC | SFS | MultiLog | ETI | MultiQueue | SFR | FADaC | WARCIP | SepBIT | FK) ;;
*) die "--placement: $placement is not one of NoSep SepGC DAC SFS MultiLog ETI MultiQueue SFR FADaC WARCIP SepBIT FK" ;;
esac
[[ $segment_bytes =~ ^[0-9]+$ && $((segment_bytes % 4096)) -eq 0 && $segment_bytes -gt 0 ]] ||
    die "--segment-bytes: $segment_bytes is not a positive multiple of 4096"
[[ $classes =~ ^[0-9]+$ && $classes -ge 1 ]] || die "--classes: $classes is not a count"
[[ -f $trace ]] || die "$trace: no such trace"
[[ -x $ftlsim ]] || die "$ftlsim: no ftlsim binary (cargo build --release -p ftlsim-cli, or --ftlsim BIN)"
command -v java >/dev/null || die "java is not installed"
command -v mvn >/dev/null || die "mvn (Maven) is not installed"

# 1. The source, copied into the work folder so the build writes nothing
#    into the caller's checkout.
mkdir -p "$work"
build=$work/trace_replay
if [[ ! -f $build/pom.xml ]]; then
    if [[ -f $src/trace_replay/pom.xml ]]; then
        cp -r "$src/trace_replay" "$work/"
    elif [[ -f $src/pom.xml && -d $src/src/main/java/gcsimulator ]]; then
        cp -r "$src" "$build"
    elif git --git-dir="$src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
        git --git-dir="$src" archive HEAD trace_replay | tar -x -C "$work" ||
            die "step source: git archive of $src failed"
    else
        die "step source: $src is neither a SepBIT checkout, its trace_replay/ nor a git dir of it"
    fi
fi

# 2. The build (once per work folder): classes and the dependency classpath.
if [[ ! -f $build/classpath.txt ]]; then
    echo "sepbit-java: building $build with Maven (first time: downloads its dependencies)" >&2
    (cd "$build" && mvn -q -B package -DskipTests) >"$work/mvn-package.log" 2>&1 ||
        die "step build: mvn package failed; see $work/mvn-package.log"
    (cd "$build" && mvn -q -B dependency:build-classpath -Dmdep.outputFile=classpath.txt) \
        >"$work/mvn-classpath.log" 2>&1 ||
        die "step build: mvn dependency:build-classpath failed; see $work/mvn-classpath.log"
fi

# 3. The trace in SepBIT's input (Alibaba's CSV: volume,W,offset,length,us),
#    its property line (volume, distinct blocks written, the largest byte
#    address, which sizes its index maps) and, for FK, its oracle; kept per
#    trace (by name) while newer than the trace.
traces=$work/traces/$(basename "$trace")
mkdir -p "$traces/oracles"
if [[ ! -s $traces/property.txt || $trace -nt $traces/property.txt ]]; then
    rm -f "$traces/property.txt" "$traces/oracles/0.oracle"
    "$ftlsim" trace convert "$trace" "$traces/0.csv" --to alibaba 2>"$traces/convert.log" ||
        die "step convert: ftlsim trace convert failed: $(tail -1 "$traces/convert.log")"
    unique=$("$ftlsim" trace stats "$trace" --json | sed -n 's/.*"footprint_write_pages":\([0-9]*\).*/\1/p')
    max_byte=$(awk -F, '{ e = $3 + $4; if (e > m) m = e } END { printf "%d", m }' "$traces/0.csv")
    [[ -n $unique && -n $max_byte ]] || die "step convert: no footprint for $trace"
    echo "0 $unique $max_byte" >"$traces/property.txt"
fi
if [[ $placement == FK && ! -s $traces/oracles/0.oracle ]]; then
    "$ftlsim" trace lifespans "$trace" --sepbit "$traces/oracles/0.oracle" --page-bytes 4096 \
        >"$traces/lifespans.log" 2>&1 ||
        die "step oracle: ftlsim trace lifespans failed: $(tail -1 "$traces/lifespans.log")"
fi
run=$work/run
rm -rf "$run"
mkdir -p "$run/tmp/segments" "$run/tmp/indexmap" "$run/tmp/ondiskfifo"
echo "$traces/0.csv" >"$run/group.txt"

# 4. The run. In-memory index maps (PureInMem) instead of its on-disk ones:
#    the same maps, faster on small traces.
out=${log:-$run/simulator.log}
start=$(date +%s.%N)
java -Xmx8g -cp "$build/target/classes:$(cat "$build/classpath.txt")" gcsimulator.Simulator \
    --path "$run/group.txt" --outputPrefix "$run/tmp/" --propertyPath "$traces/property.txt" \
    --oraclePath "$traces/oracles/" --selectionAlgorithm "$algorithm" \
    --setSeparateMethod "$placement" --setNumOpenSegments "$classes" \
    --setSystemGarbageProportionThreshold "$gc_threshold" --setSegmentSize "$segment_bytes" \
    --setPickSegAmount 1 --indexMapType PureInMem --indexMapCache Null \
    --printGCInfo 0 --printSegmentInSummary 0 >"$out" 2>&1 ||
    die "step run: the simulator failed; see $out"
end=$(date +%s.%N)

# 5. Its summary: '** WA **' and 'nGC', and the bytes behind the WA.
wa=$(sed -n 's/^ *\*\* WA \*\* *: *//p' "$out")
gcs=$(sed -n 's/^ *nGC *: *//p' "$out")
user=$(sed -n 's/^ *bytes_to_System: *//p' "$out")
storage=$(sed -n 's/^ *bytes_to_Storage: *//p' "$out")
[[ -n $wa && -n $gcs ]] || die "step parse: no '** WA **' or 'nGC' line in $out"
printf '{"placement":"%s","selection":"%s","segment_bytes":%s,"gc_threshold":%s,"classes":%s,"wa":%s,"gc_count":%s,"user_write_bytes":%s,"storage_write_bytes":%s,"seconds":%.1f}\n' \
    "$placement" "$selection" "$segment_bytes" "$gc_threshold" "$classes" "$wa" "$gcs" \
    "$user" "$storage" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
