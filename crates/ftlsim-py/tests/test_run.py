"""ftlsim.run: the same numbers as the CLI, every config form, frames,
plots, errors that name the key, Ctrl-C."""

import json
import os
import signal
import subprocess
import threading

import pandas as pd
import pytest

import ftlsim
from conftest import SMALL


def cli_json(cli, config, sets):
    args = [str(cli), "run", "--json", str(config)]
    for key, value in sets.items():
        args += ["--set", f"{key}={value}"]
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("example", ["basic.toml", "log.toml", "timing.toml"])
def test_run_matches_the_cli(cli, root, example):
    config = root / "examples" / example
    result = ftlsim.run(config, SMALL)
    assert result.summary == cli_json(cli, config, SMALL)
    assert result.waf == result.summary["waf"]
    assert result.summary["tcwa"] > 1.0


def test_config_forms_agree(root):
    text = (root / "examples" / "basic.toml").read_text()
    by_path = ftlsim.run(str(root / "examples" / "basic.toml"), SMALL).summary
    by_text = ftlsim.run(text, SMALL).summary
    by_keywords = ftlsim.run(
        text,
        device__blocks=256,
        device__pages_per_block=64,
        workload__warmup="1x",
        workload__writes="1x",
    ).summary
    as_dict = {
        "device": {"blocks": 256, "pages_per_block": 64},
        "workload": {"warmup": "1x", "writes": "1x"},
    }
    defaults = ftlsim.run(as_dict).summary
    assert by_path == by_text == by_keywords
    assert defaults == ftlsim.run(None, SMALL).summary


def test_result_frames_and_plot(root):
    import matplotlib

    matplotlib.use("Agg")
    r = ftlsim.run(root / "examples" / "log.toml", SMALL)
    assert isinstance(r.timeseries, pd.DataFrame) and len(r.timeseries) > 10
    assert {"phase", "host_write_pages", "window_waf"} <= set(r.timeseries.columns)
    assert list(r.layers["name"]) == ["log", "ssd"]
    assert r.layers["wa"].prod() == pytest.approx(r.summary["tcwa"])
    assert set(r.layer_timeseries["name"]) == {"log", "ssd"}
    ax = r.plot()
    labels = [line.get_label() for line in ax.get_lines()]
    assert "window WAF" in labels and "layer 0 (log) window WA" in labels


def test_bad_config_raises_with_the_key():
    with pytest.raises(ftlsim.FtlsimError, match="device.spare_factor"):
        ftlsim.run(None, {"device.spare_factor": 1.5})
    with pytest.raises(ftlsim.FtlsimError, match="blokcs"):
        ftlsim.run({"device": {"blokcs": 3}})
    with pytest.raises(ftlsim.FtlsimError, match=r"<string>:2"):
        ftlsim.run("[device]\nblocks = = 3\n")
    with pytest.raises(ftlsim.FtlsimError, match="no such file"):
        ftlsim.run("no/such/config.toml")
    with pytest.raises(TypeError):
        ftlsim.run(42)
    # The interpreter survives, and a good run works afterwards.
    assert ftlsim.run(None, SMALL).waf > 1.0


def test_check_config_fills_defaults():
    cfg = ftlsim.check_config(None, {"device.blocks": 128})
    assert cfg["device"]["blocks"] == 128
    assert cfg["ftl"]["gc_policy"] == "greedy"


def test_ctrl_c_stops_a_run():
    # A run of many seconds, interrupted after a moment: KeyboardInterrupt,
    # well before it would have finished.
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            ftlsim.run(None, {"device.blocks": 8192, "workload.writes": "200x"})
    finally:
        timer.cancel()


def test_model_waf_is_the_reference_table():
    # ../shared/reference/analytical-waf.md: greedy b = 64, Sf 0.10.
    assert ftlsim.model_waf("greedy", 0.10, 64) == pytest.approx(4.8213, abs=1e-3)
    assert ftlsim.model_waf("random", 0.10) == pytest.approx(10.0)
    with pytest.raises(ftlsim.FtlsimError, match="policy"):
        ftlsim.model_waf("lru", 0.1)


def test_skipped_trace_lines_are_a_warning(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(
        "128166372000000000,hm,0,Write,0,4096,10\n128166372000000001,hm,0,Write,abc,4096,10\n"
    )
    sets = {
        "workload.type": "trace",
        "workload.trace.path": str(path),
        "workload.trace.format": "msr",
        "workload.trace.skip_bad_lines": True,
        "device.blocks": 32,
        "device.pages_per_block": 16,
        "device.spare_factor": 0.2,
    }
    with pytest.warns(UserWarning, match=r"bad\.csv: skipped 1 bad lines"):
        result = ftlsim.run(None, sets)
    assert result.summary["host_write_pages"] == 1
