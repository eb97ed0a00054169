#!/usr/bin/env python3
"""What PCStream's live-LBA table charges to each PC of a native trace, per
lifetime granularity (docs/real-workloads.md, "Why AutoStream beats PCStream
on the rollback journal").

    python3 scripts/pcstream-charges.py traces/real/sqlite-journal-aged.ftlt.zst 1048576 4096

For each granularity G it replays the trace's writes and trims through the
chunk rules of crates/ftlsim/src/host/pcstream.rs (`record_write`,
`record_trim`, `chunk_dies`): a chunk of G bytes remembers the PC that
opened it and when; a write into the part already written, or a trim, ends
it and charges its age (pages written through the layer since it opened) to
that PC; a write past that part extends it. Only the first PC of a chunk is
ever charged. The table is unlimited and persistent, and there is no
clustering: this shows what PCStream learns, not what it then does. Compare
the mean with the true per-page lifetimes of `ftlsim trace pcs TRACE`.

Reads `.ftlt.zst` through the `zstd` command, or a plain native trace.
PCs are printed whole, as `ftlsim trace pcs` prints them (the layer masks
bits 24-31 and 63, which changes nothing on the corpus).
"""

import collections
import subprocess
import sys

PAGE_BYTES = 4096


def read_trace(path):
    if path.endswith(".zst"):
        return subprocess.run(["zstd", "-dc", path], capture_output=True, check=True).stdout
    with open(path, "rb") as f:
        return f.read()


def records(data):
    """(op, offset, length, context) per record; the format is in
    crates/ftlsim-trace/src/native.rs."""
    if data[:8] != b"FTLSIMTR":
        sys.exit("not a native trace (no FTLSIMTR magic)")
    i, end = 16, 0

    def varint():
        nonlocal i
        v = shift = 0
        while True:
            b = data[i]
            i += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return v

    def zigzag(v):
        return (v >> 1) ^ -(v & 1)

    while i < len(data):
        tag = data[i]
        i += 1
        if tag == 0xFF:
            return
        op = tag & 3
        if tag & 0x40:  # extended op (remap, clone) and its source offset
            op = data[i]
            i += 1
            varint()
        varint()  # time
        offset = end + zigzag(varint())
        length = varint()
        end = offset + length
        if tag & 4:
            varint()  # device
        if tag & 8:
            varint()  # stream
        context = varint() if tag & 16 else 0
        if tag & 32:
            count = varint()  # fingerprints (read before i moves on)
            i += 16 * count
        yield op, offset, length, context
    sys.exit("truncated trace: no end marker")


def charges(data, granularity_bytes):
    chunk_pages = max(1, granularity_bytes // PAGE_BYTES)
    chunks = {}  # index -> [pc, opened_at, extent]
    charged = collections.defaultdict(list)
    written = collections.Counter()
    now = 0

    def dies(i):
        pc, opened_at, _ = chunks.pop(i)
        if pc:
            charged[pc].append(now - opened_at)

    for op, offset, length, pc in records(data):
        lpn, pages = offset // PAGE_BYTES, -(-length // PAGE_BYTES)
        if op == 1:
            written[pc] += pages
            end, at = lpn + pages, lpn
            while at < end:
                i = at // chunk_pages
                start = i * chunk_pages
                chunk_end = max(min(start + chunk_pages, end), at + 1)
                c = chunks.get(i)
                if c is not None and at - start < c[2]:
                    dies(i)
                    c = None
                if c is None:
                    chunks[i] = [pc, now, chunk_end - start]
                else:
                    c[2] = max(c[2], chunk_end - start)
                at = chunk_end
            now += pages
        elif op == 2:
            last = lpn + max(pages, 1) - 1
            for i in range(lpn // chunk_pages, last // chunk_pages + 1):
                if i in chunks:
                    dies(i)
    return written, charged


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    data = read_trace(sys.argv[1])
    for granularity in map(int, sys.argv[2:]):
        written, charged = charges(data, granularity)
        print(f"granularity {granularity} bytes")
        print(f"{'pc':<18} {'pages':>8} {'charges':>8} {'mean':>9} {'median':>8}")
        for pc, pages in written.most_common():
            lives = sorted(charged.get(pc, []))
            mean = f"{sum(lives) / len(lives):.0f}" if lives else "-"
            median = lives[len(lives) // 2] if lives else "-"
            name = f"{pc:016x}" if pc else "(none)"
            print(f"{name:<18} {pages:>8} {len(lives):>8} {mean:>9} {median:>8}")
        print()


if __name__ == "__main__":
    main()
