"""``ftlsim.sweep``: the cartesian product of a grid of overrides, run on
any ``concurrent.futures.Executor`` — a process pool on this machine, a Dask
cluster (``client.get_executor()``), Ray — with the same table out."""

from __future__ import annotations

import itertools
import json
import os
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import pandas as pd

from . import _config, _native
from ._run import scalars

_MASK64 = (1 << 64) - 1


def _splitmix64(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def repeat_seed(base_seed: int, repeat: int) -> int:
    """The workload seed of repeat ``repeat``: the config's own for repeat 0
    (so a sweep row equals ``run`` of the same config), a SplitMix64 step
    away for the others. Every row of one repeat shares its seed, so the
    variants of a grid see the same request sequence."""
    if repeat == 0:
        return base_seed
    return _splitmix64(base_seed + repeat) & ((1 << 63) - 1)


def run_task(kind: str, text: str, origin: str, sets: List[str]) -> Tuple[Optional[Dict[str, Any]], Optional[str]]:
    """One sweep row on a worker: the summary's scalars, or the error's message."""
    # A sweep keeps every core busy with runs of its own: a timed run's second
    # thread (the timer trailing the device) would only add its hand-off cost.
    # The results are the same either way; a worker's own setting wins.
    os.environ.setdefault("FTLSIM_PIPELINE", "0")
    try:
        report, _, _, _ = _native.run_report(kind, text, origin, sets, False)
    except _native.FtlsimError as e:
        return None, str(e)
    except Exception as e:  # noqa: BLE001 - one point's failure is its row's error
        # Anything else is a bug, but still this point's and not the
        # sweep's: a row says so, the other points still run.
        return None, f"{type(e).__name__}: {e}"
    return scalars(json.loads(report)), None


def sweep(
    config: _config.Config,
    grid: Mapping[str, Sequence[Any]],
    executor: Optional[Executor] = None,
    repeats: int = 1,
    *,
    overrides: Optional[Mapping[str, Any]] = None,
    progress: bool = True,
) -> pd.DataFrame:
    """Runs every combination of ``grid`` (dotted keys to lists of values)
    over ``config`` and returns one row per run: the grid's values, ``repeat``,
    ``seed``, the summary's numbers (the keys of ``ftlsim run --json``) and
    ``error`` (the message of a config that failed; its other columns empty).

    ``executor`` is any ``concurrent.futures.Executor``; by default a process
    pool over every core. A point that fails for any reason (a bad value such
    as NaN, an error in its run, a lost worker) is a row with ``error`` set;
    Ctrl-C cancels the runs not started yet and raises KeyboardInterrupt at once. Rows come back in grid order whatever the executor
    and whatever order runs finish in, and seeds are derived per repeat
    (:func:`repeat_seed`), so the table is the same on a laptop or a cluster.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, not {repeats}")
    keys = list(grid)
    for key in keys:
        values = grid[key]
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
            raise ValueError(f"grid[{key!r}] must be a non-empty list of values")
    kind, text, origin = _config.source(config)
    base = _config.overrides(overrides, {})
    base_config = json.loads(_native.check_config(kind, text, origin, _config.sets(base)))
    base_seed = int(base_config["workload"]["seed"])

    tasks = []
    for combo in itertools.product(*(grid[k] for k in keys)):
        params = dict(zip(keys, combo))
        for r in range(repeats):
            row = dict(params)
            items = dict(base)
            items.update(params)
            seed = int(items.get("workload.seed", repeat_seed(base_seed, r)))
            if "workload.seed" not in params:
                items["workload.seed"] = seed
                row["seed"] = seed
            row["repeat"] = r
            # A value TOML cannot hold (NaN, None) fails this point only.
            try:
                tasks.append((row, _config.sets(items), None))
            except _native.FtlsimError as e:
                tasks.append((row, None, str(e)))

    own = executor is None
    if own:
        executor = ProcessPoolExecutor(max_workers=os.cpu_count() or 1)
    results: List[Any] = [(None, error) for (_, _, error) in tasks]
    futures: Dict[Any, int] = {}
    interrupted = True
    try:
        futures = {
            executor.submit(run_task, kind, text, origin, sets): i
            for i, (_, sets, error) in enumerate(tasks)
            if error is None
        }
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(futures), desc="ftlsim sweep", unit="run")
        for future in as_completed(futures):
            try:
                results[futures[future]] = future.result()
            except Exception as e:  # noqa: BLE001 - a lost worker fails its point
                results[futures[future]] = (None, f"{type(e).__name__}: {e}")
            if bar is not None:
                bar.update(1)
        if bar is not None:
            bar.close()
        interrupted = False
    finally:
        if interrupted:
            # Ctrl-C (or another error): the runs not started yet are
            # dropped instead of waited for, so the sweep stops now.
            for future in futures:
                future.cancel()
        if own:
            executor.shutdown(wait=not interrupted, cancel_futures=interrupted)

    rows = []
    for (row, _, _), (summary, error) in zip(tasks, results):
        out = dict(row)
        if summary is not None:
            out.update({k: v for k, v in summary.items() if k not in out})
        out["error"] = error
        rows.append(out)
    return pd.DataFrame(rows)
