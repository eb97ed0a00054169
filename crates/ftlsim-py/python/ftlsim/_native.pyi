"""Type stubs of the extension module (the Python API wraps it)."""

from typing import List, Optional, Tuple

import numpy as np
import numpy.typing as npt

class FtlsimError(ValueError): ...

def run_report(
    kind: str, text: str, origin: str, sets: List[str], check: bool = False
) -> Tuple[str, str, str, str]: ...
def check_config(kind: str, text: str, origin: str, sets: List[str]) -> str: ...
def model_waf(
    policy: str, spare_factor: float, pages_per_block: int = 256, choices: int = 8
) -> float: ...
def trace_stats(
    path: str,
    format: Optional[str] = None,
    time_unit: Optional[str] = None,
    page_bytes: int = 4096,
    skip_bad_lines: bool = False,
) -> str: ...
def _panic_for_tests() -> None: ...

class Device:
    def __init__(
        self, kind: str, text: str, origin: str, sets: List[str], track_content: bool = True
    ) -> None: ...
    @property
    def logical_pages(self) -> int: ...
    def write(
        self,
        lpns: npt.NDArray[np.uint64],
        stream: int = 0,
        context: int = 0,
        content: Optional[npt.NDArray[np.uint64]] = None,
    ) -> None: ...
    def read(self, lpns: npt.NDArray[np.uint64]) -> npt.NDArray[np.int64]: ...
    def trim(self, lpns: npt.NDArray[np.uint64]) -> None: ...
    def remap(self, src: int, dst: int, n: int) -> None: ...
    def clone_pages(self, src: int, dst: int, n: int) -> None: ...
    def flush(self) -> None: ...
    def stats_json(self) -> str: ...
    def check(self) -> None: ...

class TraceChunks:
    def __init__(
        self,
        path: str,
        format: Optional[str] = None,
        time_unit: Optional[str] = None,
        skip_bad_lines: bool = False,
    ) -> None: ...
    @property
    def format(self) -> str: ...
    def next_chunk(
        self, n: int
    ) -> Optional[
        Tuple[
            npt.NDArray[np.uint64],
            npt.NDArray[np.uint8],
            npt.NDArray[np.uint64],
            npt.NDArray[np.uint64],
            npt.NDArray[np.uint64],
            npt.NDArray[np.int64],
            npt.NDArray[np.int32],
            npt.NDArray[np.uint64],
        ]
    ]: ...
