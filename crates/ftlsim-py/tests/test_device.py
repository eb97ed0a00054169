"""ftlsim.Device: Python as the host. Random writes, reads, trims, remaps
and clones against a reference dict, on the FTL alone and under a stack of
two logs; bad requests raise without harming the device."""

import numpy as np
import pytest

import ftlsim

SMALL_DEVICE = {
    "device": {"blocks": 64, "pages_per_block": 8, "spare_factor": 0.25, "pe_cycle_limit": 0},
    "ftl": {"remap": True, "streams": 2},
}
LOGS = {
    "device": {"blocks": 64, "pages_per_block": 8, "spare_factor": 0.25, "pe_cycle_limit": 0},
    "host": {
        "layers": [
            {"type": "log", "capacity_ratio": 0.85, "segment_pages": 4, "append_streams": 2},
            {"type": "log", "capacity_ratio": 0.9, "segment_pages": 8},
        ]
    },
}


def drive(config, steps, seed):
    rng = np.random.default_rng(seed)
    dev = ftlsim.Device(config)
    n = dev.logical_pages
    model = {}
    next_tag = 1000
    for _ in range(steps):
        kind = rng.choice(["write", "write", "write", "read", "trim", "remap", "clone"])
        if kind == "write":
            lpns = rng.integers(0, n, size=rng.integers(1, 50))
            tags = np.arange(next_tag, next_tag + len(lpns), dtype=np.uint64)
            next_tag += len(lpns)
            dev.write(lpns, stream=int(rng.integers(0, 2)) if "ftl" in config else 0, content=tags)
            for lpn, tag in zip(lpns, tags):
                model[int(lpn)] = int(tag)
        elif kind == "read":
            lpns = rng.integers(0, n, size=20)
            got = dev.read(lpns)
            want = [model.get(int(l), -1) for l in lpns]
            assert list(got) == want
        elif kind == "trim":
            lpns = rng.integers(0, n, size=rng.integers(1, 5))
            dev.trim(lpns)
            for lpn in lpns:
                model.pop(int(lpn), None)
        else:
            length = int(rng.integers(1, 4))
            src, dst = (int(x) for x in rng.integers(0, n - length, size=2))
            valid = abs(src - dst) >= length and all(s in model for s in range(src, src + length))
            try:
                (dev.remap if kind == "remap" else dev.clone)(src, dst, length)
            except ftlsim.FtlsimError as e:
                assert not valid, f"a valid {kind} was refused: {e}"
                continue
            assert valid, f"an invalid {kind} succeeded"
            for k in range(length):
                model[dst + k] = model[src + k]
                if kind == "remap":
                    del model[src + k]
    dev.check()
    everything = np.arange(n)
    assert list(dev.read(everything)) == [model.get(l, -1) for l in range(n)]
    return dev


def test_device_reads_back_what_it_wrote_through_remap_and_trim():
    dev = drive(SMALL_DEVICE, 400, seed=1)
    stats = dev.stats()
    assert stats["counters"]["gc_count"] > 0, "GC should have run"
    assert stats["counters"]["remap_pages"] > 0


def test_a_stack_of_logs_reads_back_what_it_wrote():
    dev = drive(LOGS, 400, seed=2)
    layers = dev.stats()["layers"]
    assert [l["name"] for l in layers] == ["log", "log", "ssd"]
    assert all(l["gc_count"] > 0 for l in layers[:2])


def test_bad_requests_raise_and_change_nothing():
    dev = ftlsim.Device(SMALL_DEVICE)
    dev.write([1, 2, 3], content=[7, 8, 9])
    with pytest.raises(ftlsim.FtlsimError, match="logical space"):
        dev.write([dev.logical_pages])
    with pytest.raises(ftlsim.FtlsimError, match="stream 5"):
        dev.write([1], stream=5)
    with pytest.raises(ValueError, match="negative"):
        dev.write([-1])
    with pytest.raises(ValueError, match="content has"):
        dev.write([1, 2], content=[1])
    assert list(dev.read([1, 2, 3])) == [7, 8, 9]
    dev.check()
