"""Python overheads, measured back to back on one machine:

1. ``ftlsim.run`` against the ``ftlsim`` binary on the 64 GiB bench case
   (uniform random writes, Sf 0.28, sequential fill, 1.5x warm-up, 0.5x
   measured), wall time of the whole run, medians of 3;
2. ``Device.write`` with 1 M-page numpy batches of random pages after the
   same fill and warm-up, pages per second, median of 3 segments of 0.5x;
3. a 64-config sweep on a process pool of 1 worker and of every core.

Usage: python bench.py [--quick] (from scripts/py-bench.sh).
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

import ftlsim

QUICK = "--quick" in sys.argv
BLOCKS = 4096 if QUICK else 65536
CONFIG = f"""
[device]
blocks = {BLOCKS}
pages_per_block = 256
spare_factor = 0.28
[workload]
type = "uniform"
warmup = "1.5x"
writes = "0.5x"
[metrics]
survival = true
"""
BIN = os.environ.get("FTLSIM_BIN", "target/release/ftlsim")


def run_vs_cli():
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(CONFIG)
    cli, py = [], []
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run([BIN, "run", f.name], check=True, capture_output=True)
        cli.append(time.perf_counter() - t)
        t = time.perf_counter()
        ftlsim.run(f.name)
        py.append(time.perf_counter() - t)
    os.unlink(f.name)
    return statistics.median(cli), statistics.median(py)


def device_write(track_content):
    dev = ftlsim.Device(CONFIG, track_content=track_content)
    n = dev.logical_pages
    batch = 1 << 20
    rng = np.random.default_rng(1)
    for start in range(0, n, batch):
        dev.write(np.arange(start, min(n, start + batch), dtype=np.uint64))
    for _ in range(int(1.5 * n) // batch):
        dev.write(rng.integers(0, n, size=batch, dtype=np.uint64))
    rates = []
    for _ in range(3):
        batches = [rng.integers(0, n, size=batch, dtype=np.uint64) for _ in range(max(1, n // 2 // batch))]
        t = time.perf_counter()
        for b in batches:
            dev.write(b)
        rates.append(len(batches) * batch / (time.perf_counter() - t))
    return statistics.median(rates)


def native_rate():
    out = subprocess.run(
        [BIN, "bench", "--json"] + (["--quick"] if QUICK else []),
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)["host_writes_per_sec"]


def sweep_scaling():
    base = {
        "device": {"blocks": 2048, "pages_per_block": 64, "pe_cycle_limit": 0},
        "workload": {"warmup": "2x", "writes": "2x"},
    }
    grid = {
        "ftl.gc_policy": ["greedy", "fifo", "cost-benefit", "d-choices"],
        "device.spare_factor": [0.07, 0.1, 0.13, 0.16, 0.19, 0.22, 0.25, 0.28],
        "workload.type": ["uniform", "hot-cold"],
    }
    times = {}
    for workers in sorted({1, os.cpu_count() or 1}):
        with ProcessPoolExecutor(max_workers=workers) as pool:
            list(pool.map(int, range(workers)))  # workers up before the clock
            t = time.perf_counter()
            table = ftlsim.sweep(base, grid, executor=pool, progress=False)
            times[workers] = time.perf_counter() - t
        assert len(table) == 64 and table["error"].isna().all()
    return times


if __name__ == "__main__":
    cli, py = run_vs_cli()
    print(f"ftlsim.run vs CLI, {BLOCKS} blocks: CLI {cli:.2f} s, Python {py:.2f} s ({py / cli - 1:+.1%})")
    native = native_rate()
    for content in (False, True):
        rate = device_write(content)
        print(
            f"Device.write 1M-page batches, track_content={content}: {rate / 1e6:.2f} M pages/s"
            f" ({rate / native:.2f} x native {native / 1e6:.2f} M host writes/s)"
        )
    times = sweep_scaling()
    one = times[1]
    for workers, t in times.items():
        print(f"64-config sweep, {workers} worker(s): {t:.1f} s ({one / t:.2f} x one worker)")
