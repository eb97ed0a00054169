"""Traces from Python: ``open`` reads any format ftlsim reads in chunks,
``read`` a whole trace, ``stats`` its statistics."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterator, Optional, Union

import numpy as np
import pandas as pd

from . import _native

COLUMNS = (
    "time_ns",
    "op",
    "offset_bytes",
    "length_bytes",
    "src_offset_bytes",
    "device",
    "stream",
    "context",
)
OPS = ("read", "write", "trim", "flush", "remap", "clone")

Path = Union[str, "os.PathLike[str]"]


def open(
    path: Path,
    format: Optional[str] = None,
    time_unit: Optional[str] = None,
    chunk: int = 65536,
    as_frame: bool = True,
    skip_bad_lines: bool = False,
) -> Iterator[Union[pd.DataFrame, Dict[str, np.ndarray]]]:
    """Iterates over a trace ``chunk`` records at a time, as DataFrames (or
    dicts of numpy arrays with ``as_frame=False``) with the columns
    ``COLUMNS``: times in ns, offsets and lengths in bytes, ``op`` a
    category of ``OPS`` (its code 0..5 without ``as_frame``), ``device`` and
    ``stream`` -1 where the format has none. ``format`` is detected when
    not given; ``time_unit`` is for DiskSim and fio traces."""
    reader = _native.TraceChunks(os.fspath(path), format, time_unit, skip_bad_lines)
    while True:
        cols = reader.next_chunk(chunk)
        if cols is None:
            return
        data = dict(zip(COLUMNS, cols))
        if not as_frame:
            yield data
            continue
        frame = pd.DataFrame(data)
        frame["op"] = pd.Categorical.from_codes(frame["op"].astype("int8"), categories=list(OPS))
        yield frame


def read(path: Path, **options: Any) -> pd.DataFrame:
    """A whole trace as one DataFrame (see :func:`open`)."""
    frames = list(open(path, **options))
    if not frames:
        return pd.DataFrame({c: [] for c in COLUMNS})
    return pd.concat(frames, ignore_index=True)


def stats(
    path: Path,
    format: Optional[str] = None,
    time_unit: Optional[str] = None,
    page_bytes: int = 4096,
    skip_bad_lines: bool = False,
) -> Dict[str, Any]:
    """The statistics ``ftlsim trace stats --json`` prints."""
    return json.loads(
        _native.trace_stats(os.fspath(path), format, time_unit, page_bytes, skip_bad_lines)
    )
