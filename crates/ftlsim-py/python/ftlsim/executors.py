"""Ready executors for :func:`ftlsim.sweep`, so that nobody writes an adapter.

Each is a ``concurrent.futures.Executor`` and a context manager that cleans
up what it started (and only that)::

    with ftlsim.executors.ray_executor() as ex:        # ray.init() on this machine
        table = ftlsim.sweep(cfg, grid, executor=ex)

* :func:`process_pool` — worker processes on this machine (what ``sweep``
  uses when given no executor).
* :func:`dask_executor` — a Dask cluster: ``address`` of a scheduler, or a
  ``LocalCluster`` started here; needs ``dask[distributed]`` (the ``dask``
  extra).
* :func:`ray_executor` — Ray: ``address`` of a cluster (``"auto"`` inside
  one), or ``ray.init`` here; needs ``ray`` (the ``ray`` extra).

Rows come back in grid order with per-repeat seeds whatever runs them, so
the three give the same DataFrame (``crates/ftlsim-py/tests/test_executors.py``).
"""

from __future__ import annotations

import os
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any, Callable, Dict, Optional

__all__ = ["process_pool", "dask_executor", "ray_executor", "DaskExecutor", "RayExecutor"]


def process_pool(workers: Optional[int] = None) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes (default: every core)."""
    return ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1)


class DaskExecutor(Executor):
    """Submits to a Dask ``Client``; closes the client, and the local
    cluster, when it started them."""

    def __init__(self, client: Any, owned: tuple = ()) -> None:
        self.client = client
        self._executor = client.get_executor()
        self._owned = owned

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        return self._executor.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        # Closing in reverse order of creation: the client before its cluster.
        for thing in reversed(self._owned):
            thing.close()
        self._owned = ()


def dask_executor(
    address: Optional[str] = None, workers: Optional[int] = None, **client_options: Any
) -> DaskExecutor:
    """A Dask executor: a ``Client`` of the scheduler at ``address``
    (e.g. ``"scheduler:8786"``), or, without one, of a ``LocalCluster`` of
    ``workers`` single-threaded processes (default: every core) started here.
    Single-threaded because a run holds its core for its whole length."""
    from dask.distributed import Client, LocalCluster

    if address is not None:
        client = Client(address, **client_options)
        return DaskExecutor(client, (client,))
    cluster = LocalCluster(
        n_workers=workers or os.cpu_count() or 1,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
    )
    client = Client(cluster, **client_options)
    return DaskExecutor(client, (cluster, client))


class RayExecutor(Executor):
    """Submits each call as a Ray task (one CPU each); its futures are
    ``concurrent.futures`` futures. Calls ``ray.shutdown()`` at the end only
    when it was the one that called ``ray.init()``."""

    def __init__(self, owned: bool = False) -> None:
        import ray

        self._ray = ray
        self._owned = owned
        # ray.remote registers a function with the cluster: once per function,
        # not once per task.
        self._remote: Dict[Callable[..., Any], Any] = {}

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        remote = self._remote.get(fn)
        if remote is None:
            remote = self._remote[fn] = self._ray.remote(num_cpus=1)(fn)
        return remote.remote(*args, **kwargs).future()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self._owned:
            self._ray.shutdown()
            self._owned = False


def ray_executor(
    address: Optional[str] = None, num_cpus: Optional[int] = None, **init_options: Any
) -> RayExecutor:
    """A Ray executor: joins the cluster at ``address`` (``"auto"``: the one
    this machine belongs to), or starts Ray here with ``num_cpus`` CPUs
    (default: every core); if Ray is already initialised it is used as is.
    ``init_options`` go to ``ray.init``."""
    import ray

    if ray.is_initialized():
        return RayExecutor(owned=False)
    options: Dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    options.update(init_options)
    if address is not None:
        ray.init(address=address, **options)
    else:
        ray.init(num_cpus=num_cpus or os.cpu_count() or 1, **options)
    return RayExecutor(owned=True)
