"""ftlsim.executors: the same sweep on a process pool, a Dask LocalCluster
and a local Ray cluster gives the same DataFrame."""

import pandas as pd
import pytest

import ftlsim
from conftest import SMALL
from ftlsim import executors

GRID = {"ftl.gc_policy": ["greedy", "cost-benefit"], "device.spare_factor": [0.1, 0.25]}


@pytest.fixture(scope="module")
def on_process_pool():
    with executors.process_pool(2) as pool:
        table = ftlsim.sweep(None, GRID, executor=pool, overrides=SMALL, repeats=2, progress=False)
    assert len(table) == 8 and table["error"].isna().all()
    return table


def test_dask_cluster_equals_process_pool(on_process_pool):
    pytest.importorskip("dask.distributed")
    with executors.dask_executor(workers=2) as ex:
        assert len(ex.client.scheduler_info()["workers"]) == 2
        table = ftlsim.sweep(None, GRID, executor=ex, overrides=SMALL, repeats=2, progress=False)
    pd.testing.assert_frame_equal(on_process_pool, table)


def test_ray_cluster_equals_process_pool(on_process_pool):
    # scripts/python-env.sh installs ray (the `ray` extra); a bare
    # `pip install ftlsim[test]` elsewhere may not have it.
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'ftlsim[ray]')")
    with executors.ray_executor(num_cpus=2) as ex:
        assert ray.is_initialized() and ray.cluster_resources()["CPU"] == 2
        table = ftlsim.sweep(None, GRID, executor=ex, overrides=SMALL, repeats=2, progress=False)
    assert not ray.is_initialized(), "the executor shuts down the Ray it started"
    pd.testing.assert_frame_equal(on_process_pool, table)


def test_a_ray_session_already_running_is_left_running():
    ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'ftlsim[ray]')")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        with executors.ray_executor() as ex:
            table = ftlsim.sweep(None, {"device.spare_factor": [0.2]}, executor=ex, overrides=SMALL, progress=False)
        assert ray.is_initialized()
        assert table.loc[0, "waf"] == ftlsim.run(None, {**SMALL, "device.spare_factor": 0.2}).waf
    finally:
        ray.shutdown()
