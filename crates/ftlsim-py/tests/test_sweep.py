"""ftlsim.sweep: grid order, error rows, seeds. The same table on a process
pool, a Dask LocalCluster and Ray: test_executors.py."""

import pytest

import ftlsim
from conftest import SMALL

GRID = {
    "ftl.gc_policy": ["greedy", "fifo"],
    "device.spare_factor": [0.1, 0.2, 1.5],
}


def test_sweep_rows_follow_the_grid_and_failures_are_rows():
    table = ftlsim.sweep(None, GRID, overrides=SMALL, progress=False)
    assert len(table) == 6
    assert list(table["ftl.gc_policy"]) == ["greedy"] * 3 + ["fifo"] * 3
    assert list(table["device.spare_factor"]) == [0.1, 0.2, 1.5] * 2
    bad = table[table["device.spare_factor"] == 1.5]
    assert bad["error"].str.contains("device.spare_factor").all()
    assert bad["waf"].isna().all()
    good = table[table["device.spare_factor"] < 1]
    assert good["error"].isna().all()
    # More spare space, less write amplification, for each policy.
    for _, rows in good.groupby("ftl.gc_policy"):
        assert rows["waf"].is_monotonic_decreasing


def test_a_sweep_row_is_the_run_of_its_config():
    table = ftlsim.sweep(None, {"device.spare_factor": [0.2]}, overrides=SMALL, progress=False)
    run = ftlsim.run(None, {**SMALL, "device.spare_factor": 0.2})
    assert table.loc[0, "waf"] == run.waf
    assert table.loc[0, "gc_count"] == run.summary["gc_count"]


def test_repeats_get_their_own_seeds():
    table = ftlsim.sweep(None, {"ftl.gc_policy": ["random"]}, repeats=3, overrides=SMALL, progress=False)
    assert list(table["repeat"]) == [0, 1, 2]
    assert table.loc[0, "seed"] == 42
    assert table["seed"].nunique() == 3
    assert table["waf"].nunique() == 3


def test_bad_grid_is_refused():
    with pytest.raises(ValueError, match="grid"):
        ftlsim.sweep(None, {"device.spare_factor": 0.1}, progress=False)
    with pytest.raises(ValueError, match="repeats"):
        ftlsim.sweep(None, {"device.spare_factor": [0.1]}, repeats=0, progress=False)
    with pytest.raises(ftlsim.FtlsimError, match="device.blokcs"):
        ftlsim.sweep(None, {"device.spare_factor": [0.1]}, overrides={"device.blokcs": 1}, progress=False)
