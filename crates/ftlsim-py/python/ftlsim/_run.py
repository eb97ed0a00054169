"""``ftlsim.run``: one config to a :class:`Result`."""

from __future__ import annotations

import json
from typing import Any, Dict, Mapping, Optional

import pandas as pd

from . import _config, _native


def scalars(summary: Mapping[str, Any]) -> Dict[str, Any]:
    """The numbers and strings of a summary: its lists (layers, streams) left out."""
    return {k: v for k, v in summary.items() if not isinstance(v, (list, dict))}


class Result:
    """What one run gives.

    * ``summary``: the report as a dict, the same keys and numbers as
      ``ftlsim run --json`` (``waf``, ``gc_count``, ``layers``, ``tcwa``, …).
    * ``timeseries``: the WAF series, one row per window (``phase``,
      ``host_write_pages``, ``window_waf``, ``measured_waf``, …).
    * ``layers``: one row per layer of the stack over the measured window,
      top to bottom, the device last (``name``, ``write_pages_in``,
      ``write_pages_out``, ``wa``, …).
    * ``layer_timeseries``: each layer's WA per window (stacks only).
    * ``latency``: latency per window (timing on).
    """

    def __init__(self, report: str, series: str, layer_series: str, latency: str):
        self.summary: Dict[str, Any] = json.loads(report)
        self.timeseries = pd.DataFrame(json.loads(series))
        self.layers = pd.DataFrame(self.summary.get("layers", []))
        self.layer_timeseries = pd.DataFrame(json.loads(layer_series))
        self.latency = pd.DataFrame(json.loads(latency))

    @property
    def waf(self) -> Optional[float]:
        """The device's WAF over the measured window."""
        return self.summary.get("waf")

    def scalars(self) -> Dict[str, Any]:
        """Every number and string of the summary (the lists left out)."""
        return scalars(self.summary)

    def plot(self, ax=None):
        """WAF per window and the measured WAF against host writes in drive
        writes (each layer's WA too, for stacks); returns the axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(8, 4.5))
        logical = max(1, self.summary.get("logical_pages", 1))
        ts = self.timeseries
        if not ts.empty:
            x = ts["host_write_pages"] / logical
            ax.plot(x, ts["window_waf"], label="window WAF")
            measured = ts[ts["measured_waf"] > 0]
            ax.plot(
                measured["host_write_pages"] / logical,
                measured["measured_waf"],
                label="measured-window WAF",
            )
        lts = self.layer_timeseries
        if not lts.empty:
            for (layer, name), rows in lts.groupby(["layer", "name"]):
                if name == "ssd":
                    continue
                ax.plot(
                    rows["host_write_pages"] / logical,
                    rows["window_wa"],
                    label=f"layer {layer} ({name}) window WA",
                )
        ax.set_xlabel("host writes (x logical capacity)")
        ax.set_ylabel("WAF")
        ax.set_title(f"WAF over time (seed {self.summary.get('seed')})")
        ax.legend()
        return ax

    def __repr__(self) -> str:
        waf = self.waf
        text = "-" if waf is None else f"{waf:.4f}"
        return f"<ftlsim.Result waf={text} seed={self.summary.get('seed')}>"


def run(
    config: _config.Config = None,
    overrides: Optional[Mapping[str, Any]] = None,
    *,
    check: bool = False,
    **keywords: Any,
) -> Result:
    """Runs a config and returns its :class:`Result`.

    ``config`` is a path, TOML text or a dict (sections as nested dicts);
    ``overrides`` a dict of dotted keys (``{"device.spare_factor": 0.1}``),
    and keywords add more (``device__spare_factor=0.1``: ``__`` stands for a
    dot). The GIL is released while the simulation runs; Ctrl-C stops it
    with KeyboardInterrupt. A bad config raises :class:`FtlsimError` naming
    the key.
    """
    return Result(*_native.run_report(*_config.native_args(config, overrides, keywords), check))


def check_config(
    config: _config.Config = None,
    overrides: Optional[Mapping[str, Any]] = None,
    **keywords: Any,
) -> Dict[str, Any]:
    """Validates a config without running it; returns every key with its
    value (defaults filled in)."""
    return json.loads(_native.check_config(*_config.native_args(config, overrides, keywords)))
