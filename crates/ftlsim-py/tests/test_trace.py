"""ftlsim.trace: chunks as DataFrames and arrays, stats as the CLI prints them."""

import json
import subprocess

import numpy as np
import pytest

import ftlsim

MSR = """128166372003061629,hm,1,Read,383496192,32768,3186
128166372003061630,hm,1,Write,4096,8192,3186
128166372003061631,hm,1,Write,4096,4096,3186
128166372003061632,hm,1,Read,8192,4096,3186
128166372003061633,hm,1,Write,1048576,65536,3186
"""


@pytest.fixture
def msr(tmp_path):
    path = tmp_path / "hm_1.csv"
    path.write_text(MSR)
    return path


def test_chunks_as_frames_and_arrays(msr):
    frames = list(ftlsim.trace.open(msr, chunk=2))
    assert [len(f) for f in frames] == [2, 2, 1]
    whole = ftlsim.trace.read(msr)
    assert list(whole["op"]) == ["read", "write", "write", "read", "write"]
    assert list(whole["offset_bytes"]) == [383496192, 4096, 4096, 8192, 1048576]
    assert list(whole["length_bytes"]) == [32768, 8192, 4096, 4096, 65536]
    assert (np.diff(whole["time_ns"]) == 100).all()  # FILETIME ticks are 100 ns
    arrays = next(ftlsim.trace.open(msr, as_frame=False))
    assert arrays["op"].dtype == np.uint8 and list(arrays["op"][:2]) == [0, 1]


def test_stats_match_the_cli(cli, msr):
    out = subprocess.run(
        [str(cli), "trace", "stats", "--json", str(msr)], capture_output=True, text=True, check=True
    )
    assert ftlsim.trace.stats(msr) == json.loads(out.stdout)


def test_a_bad_trace_names_file_and_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(MSR + "128166372003061634,hm,1,Erase,0,4096,1\n")
    with pytest.raises(ftlsim.FtlsimError, match=r"bad.csv:6"):
        ftlsim.trace.read(path, format="msr")
