"""Bad input from Python (issue 24): every case is FtlsimError naming the
argument, key or file, never NaN, a silent fallback, a bare ValueError or
TypeError, a PanicException, or a sweep that dies or hangs."""

import os
import signal
import threading
import time

import pandas as pd
import pytest

import ftlsim
from conftest import SMALL

TOML = "[device]\nblocks = 256\npages_per_block = 64\n[workload]\nwarmup = \"1x\"\nwrites = \"1x\"\n"


@pytest.mark.parametrize("name", ["a=1.toml", "[draft].toml", "x=[1].toml"])
def test_a_config_path_with_toml_characters_is_a_path(tmp_path, name):
    path = tmp_path / name
    path.write_text(TOML)
    want = ftlsim.run(TOML).waf
    assert ftlsim.run(path).waf == want
    assert ftlsim.run(str(path)).waf == want
    # A Path that names no file is a missing file, never TOML text.
    with pytest.raises(ftlsim.FtlsimError, match="no such file"):
        ftlsim.run(tmp_path / "missing=1.toml")


def test_model_waf_refuses_arguments_outside_the_model():
    with pytest.raises(ftlsim.FtlsimError, match="pages_per_block"):
        ftlsim.model_waf("greedy", 0.1, 0)
    with pytest.raises(ftlsim.FtlsimError, match="choices"):
        ftlsim.model_waf("d-choices", 0.1, 64, 0)


def test_trace_stats_refuses_page_bytes_0(tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text("128166372003061629,hm,1,Write,0,4096,100\n")
    with pytest.raises(ftlsim.FtlsimError, match="page_bytes"):
        ftlsim.trace.stats(trace, page_bytes=0)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), None, {"a": 1}, object()])
def test_an_override_toml_cannot_hold_is_ftlsim_error_naming_the_key(value):
    with pytest.raises(ftlsim.FtlsimError, match="device.spare_factor"):
        ftlsim.run(None, {**SMALL, "device.spare_factor": value})


def test_time_past_the_horizon_is_an_error_naming_the_key():
    timing = {
        **SMALL,
        "timing.mode": "open",
        "timing.arrival_rate_iops": 1e-12,
        "timing.queue_depth": 4,
    }
    with pytest.raises(ftlsim.FtlsimError, match="timing.arrival_rate_iops"):
        ftlsim.run(None, timing)


def test_a_panic_is_ftlsim_error():
    with pytest.raises(ftlsim.FtlsimError, match="internal error"):
        ftlsim._native._panic_for_tests()


def test_failing_points_are_error_rows():
    grid = {"timing.arrival_rate_iops": [1e-12, 100000.0], "device.spare_factor": [0.1, float("nan")]}
    base = {**SMALL, "timing.mode": "open", "timing.queue_depth": 4}
    table = ftlsim.sweep(None, grid, overrides=base, progress=False)
    assert len(table) == 4
    errors = list(table["error"])
    assert "timing.arrival_rate_iops" in errors[0]
    assert "device.spare_factor" in errors[1] and "nan" in errors[1]
    assert pd.isna(errors[2]) and table.loc[2, "waf"] > 1
    assert "device.spare_factor" in errors[3]


def test_ctrl_c_stops_a_sweep_without_waiting_for_queued_runs(monkeypatch):
    # 24 runs of about a second each on the sweep's own pool of one
    # worker: 20 s or more in all.
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    grid = {"workload.seed": list(range(24))}
    slow = {**SMALL, "device.blocks": 16384, "workload.writes": "4x"}
    timer = threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGINT))
    started = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            ftlsim.sweep(None, grid, overrides=slow, progress=False)
        elapsed = time.monotonic() - started
    finally:
        timer.cancel()
    # Only the run already going may finish; the queued ones are dropped.
    assert elapsed < 6, f"the sweep took {elapsed:.1f} s to stop"
