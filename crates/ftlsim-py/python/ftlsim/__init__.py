"""ftlsim: a fast, deterministic simulator of the flash storage stack.

* :func:`run` — one config to a :class:`Result` (summary dict, DataFrames, plot).
* :func:`sweep` — a grid of overrides on any ``concurrent.futures.Executor``
  (a process pool, a Dask cluster, Ray), one DataFrame row per run;
  :mod:`ftlsim.executors` has them ready-made.
* :class:`Device` — Python as the host: write, read, trim, remap numpy batches.
* :mod:`ftlsim.trace` — any trace format ftlsim reads, as DataFrames; stats.
* :func:`model_waf` — the analytical WAF models the simulator is checked against.

Configs are a path, TOML text or a dict; errors raise :class:`FtlsimError`
with a one-line message naming the key (or the file and line).
"""

from . import executors, trace
from ._device import Device
from ._native import FtlsimError, model_waf
from ._run import Result, check_config, run
from ._sweep import repeat_seed, sweep

__all__ = [
    "Device",
    "FtlsimError",
    "Result",
    "check_config",
    "executors",
    "model_waf",
    "repeat_seed",
    "run",
    "sweep",
    "trace",
]
