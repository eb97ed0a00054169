#!/usr/bin/env bash
# fio on the live device (docs/live-device.md): first a crc32c-verified
# random-write pass that must read back intact, then 4 KiB random writes at
# queue depth 32 for throughput, recorded so that the simulator's own speed
# on the same requests can be timed with `ftlsim run` (which side limits).
# Needs root, /dev/fuse, fio. Usage: scripts/live-fio.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v fio >/dev/null || { echo "live-fio.sh: fio not found (apt-get install fio)" >&2; exit 2; }
out="${1:-target/live-fio}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
bin="$PWD/target/release/ftlsim"
[ -x "$bin" ] || cargo build --release -p ftlsim-cli

echo "== fio --verify=crc32c on ext4 on the live device"
"$bin" device run --size 1GiB --fs ext4 -- \
    fio --name=verify --filename=verify.dat --size=256M --rw=randwrite --bs=4k \
        --ioengine=libaio --iodepth=32 --direct=1 --verify=crc32c --do_verify=1 \
        --verify_fatal=1 --output="$out/verify.txt"
grep -E "err=|verify" "$out/verify.txt" | head -5

echo "== 4 KiB random writes, QD 32, 30 s, on ext4 on the live device (recorded)"
"$bin" device run --size 2GiB --fs ext4 --record "$out/randwrite.trace" -- \
    fio --name=randwrite --filename=rw.dat --size=1G --rw=randwrite --bs=4k \
        --ioengine=libaio --iodepth=32 --direct=1 --time_based --runtime=30 \
        --output-format=json --output="$out/randwrite.json"
python3 - "$out/randwrite.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]["write"]
print(f"fio: {j['bw_bytes']/1e6:.1f} MB/s, {j['iops']/1e3:.1f} kIOPS, {j['total_ios']} writes")
PY

echo "== the simulator alone on the same requests"
start=$(date +%s.%N)
"$bin" run "$out/randwrite.trace.toml" --json > "$out/replay.json"
end=$(date +%s.%N)
python3 - "$out/replay.json" "$start" "$end" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); s = float(sys.argv[3]) - float(sys.argv[2])
pages = r["host_write_pages"] + r["host_read_pages"] + r["host_trim_pages"]
print(f"ftlsim run: {r['host_write_pages']} host write pages (WAF {r['waf']}) in {s:.2f} s "
      f"= {r['host_write_pages']/s/1e3:.0f} k pages/s including start-up")
PY
