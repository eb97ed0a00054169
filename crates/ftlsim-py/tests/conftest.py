"""Shared fixtures: the repository root and the `ftlsim` binary built by
`cargo build --release -p ftlsim-cli` (scripts/test.sh builds it first)."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]

# A small device: runs take a fraction of a second.
SMALL = {
    "device.blocks": 256,
    "device.pages_per_block": 64,
    "workload.warmup": "1x",
    "workload.writes": "1x",
}


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    path = pathlib.Path(os.environ.get("FTLSIM_BIN", ROOT / "target" / "release" / "ftlsim"))
    if not path.exists():
        subprocess.run(
            ["cargo", "build", "--release", "-p", "ftlsim-cli"], cwd=ROOT, check=True
        )
    assert path.exists(), f"{path} not built"
    return path
