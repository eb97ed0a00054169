"""``ftlsim.Device``: Python as the host of a simulated device."""

from __future__ import annotations

import json
from typing import Any, Dict, Mapping, Optional

import numpy as np

from . import _config, _native


def _pages(lpns: Any) -> np.ndarray:
    """Pages as a contiguous uint64 array; negative numbers are refused."""
    if isinstance(lpns, range):
        return np.arange(lpns.start, lpns.stop, lpns.step, dtype=np.uint64)
    array = np.asarray(lpns)
    if array.ndim == 0:
        array = array.reshape(1)
    if array.ndim != 1:
        raise ValueError(f"pages must be a 1-D array, not {array.ndim}-D")
    if array.size and array.dtype.kind == "i" and array.min() < 0:
        raise ValueError("pages must not be negative")
    if array.size and array.dtype.kind not in "iu":
        raise ValueError(f"pages must be integers, not {array.dtype}")
    return np.ascontiguousarray(array, dtype=np.uint64)


class Device:
    """A device (the FTL, with the config's host layers over it) that Python
    drives page by page: a host-side placement idea against the real FTL.

    Batches are numpy arrays (or lists, ranges); each call runs in Rust with
    the GIL released, one request per page. Content tags are tracked, so
    ``read`` returns what was written (``track_content=False`` saves 8 bytes
    per physical page and a cache miss per write; ``read`` then returns 0
    for every page that holds data).
    """

    def __init__(
        self,
        config: _config.Config = None,
        overrides: Optional[Mapping[str, Any]] = None,
        *,
        track_content: bool = True,
        **keywords: Any,
    ):
        args = _config.native_args(config, overrides, keywords)
        self._dev = _native.Device(*args, track_content)

    @property
    def logical_pages(self) -> int:
        """Pages of the logical space (the top layer's)."""
        return self._dev.logical_pages

    def write(self, lpns: Any, stream: int = 0, context: int = 0, content: Any = None) -> None:
        """Writes each page of ``lpns`` in order, on host ``stream``, tagged
        with program context ``context``; ``content``: one tag per page
        (what ``read`` returns), default 0."""
        pages = _pages(lpns)
        tags = None if content is None else _pages(content)
        self._dev.write(pages, stream, context, tags)

    def read(self, lpns: Any) -> np.ndarray:
        """Reads the pages; returns their content tags (int64), -1 where a
        page holds no data."""
        return self._dev.read(_pages(lpns))

    def trim(self, lpns: Any) -> None:
        """Discards the pages."""
        self._dev.trim(_pages(lpns))

    def remap(self, src: int, dst: int, n: int) -> None:
        """Pages ``dst..dst+n`` take the data of ``src..src+n``, which is unmapped."""
        self._dev.remap(src, dst, n)

    def clone(self, src: int, dst: int, n: int) -> None:
        """Pages ``dst..dst+n`` share the data of ``src..src+n``."""
        self._dev.clone_pages(src, dst, n)

    def flush(self) -> None:
        self._dev.flush()

    def stats(self) -> Dict[str, Any]:
        """Counters since the device was built: ``counters`` (host and NAND
        page writes, GC, erases, …), ``waf``, ``free_blocks`` and ``layers``."""
        return json.loads(self._dev.stats_json())

    def check(self) -> None:
        """Audits every invariant of the device and its layers (slow); raises
        FtlsimError on a violation."""
        self._dev.check()
