"""The README's Python blocks run as written, in order, from the repository
root (the paths in them are relative to it), so they cannot rot: a name
that is never imported or an API that changed fails here."""

import os
import re

import pytest


def python_blocks(text):
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_readme_python_blocks_run_as_written(root, monkeypatch):
    blocks = python_blocks((root / "README.md").read_text())
    assert len(blocks) >= 2, "README.md's ```python blocks"
    if not (root / ".." / "shared" / "traces" / "homes.replay.0").exists():
        pytest.skip("../shared/traces is not beside this checkout (third-party traces)")
    # The blocks draw with r.plot(): no display here.
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(root)
    namespace = {"__name__": "readme"}
    for i, block in enumerate(blocks):
        code = compile(block, f"README.md python block {i + 1}", "exec")
        exec(code, namespace)
    # What the blocks promise, checked on what they left behind.
    assert namespace["r"].summary["waf"] > 1
    assert len(namespace["table"]) > 1 and namespace["table"]["error"].isna().all()
    frames = namespace["frames"]
    assert all(len(f) <= 65536 for f in frames) and len(frames) >= 1
