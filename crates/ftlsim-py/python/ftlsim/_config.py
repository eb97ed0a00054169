"""Configs as the native module takes them: a path, TOML text or a dict,
plus ``key.path=value`` overrides."""

from __future__ import annotations

import json
import math
import os
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np

from ._native import FtlsimError

Config = Union[None, str, "os.PathLike[str]", Mapping[str, Any]]


def source(config: Config) -> Tuple[str, str, str]:
    """``(kind, text, origin)``: kind "toml" or "json", origin names it in errors.

    Which is a path and which is TOML text, in this order:

    * a ``pathlib.Path`` (any ``os.PathLike``) is always a path;
    * a string naming an existing file is a path, whatever characters the
      name holds (``runs/a=1/cfg.toml``, ``[draft].toml``);
    * any other string holding a newline, ``=`` or ``[`` is TOML text
      (every config that sets a key has one of them);
    * any other string is a path, and a missing file is an error.
    """
    if config is None:
        return ("toml", "", "built-in defaults")
    if isinstance(config, Mapping):
        return ("json", json.dumps(_plain(config)), "<dict>")
    if isinstance(config, os.PathLike):
        return _read(os.fspath(config))
    if isinstance(config, str):
        if os.path.isfile(config):
            return _read(config)
        if "\n" in config or "=" in config or "[" in config:
            return ("toml", config, "<string>")
        return _read(config)
    raise TypeError(
        f"config must be a path, TOML text or a dict, not {type(config).__name__}"
    )


def _read(path: Any) -> Tuple[str, str, str]:
    """A config file's text; a file that cannot be read is FtlsimError."""
    path = os.fsdecode(path)
    try:
        with open(path, encoding="utf-8") as f:
            return ("toml", f.read(), path)
    except FileNotFoundError:
        raise FtlsimError(f"cannot read config {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise FtlsimError(f"cannot read config {path}: {e}") from None


def _plain(value: Any) -> Any:
    """numpy scalars and tuples as JSON takes them."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def toml_value(value: Any) -> str:
    """A Python value as a TOML value for ``key=value``; a value TOML cannot
    hold (NaN, infinity, None, a dict, an object) is FtlsimError."""
    value = _plain(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise FtlsimError(f"{value} is not a finite number")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise FtlsimError(f"cannot use {type(value).__name__} {value!r} as a config value")


def overrides(
    mapping: Optional[Mapping[str, Any]], keywords: Mapping[str, Any]
) -> Dict[str, Any]:
    """Overrides from a dict (``{"device.spare_factor": 0.1}``) and keywords
    (``device__spare_factor=0.1``: a double underscore stands for a dot)."""
    merged: Dict[str, Any] = dict(mapping or {})
    for key, value in keywords.items():
        merged[key.replace("__", ".")] = value
    return merged


def sets(items: Mapping[str, Any]) -> List[str]:
    """``key=value`` overrides; a bad value is FtlsimError naming its key."""
    out = []
    for key, value in items.items():
        try:
            out.append(f"{key}={toml_value(value)}")
        except FtlsimError as e:
            raise FtlsimError(f"override `{key}`: {e}") from None
    return out


def native_args(
    config: Config, mapping: Optional[Mapping[str, Any]], keywords: Mapping[str, Any]
) -> Tuple[str, str, str, List[str]]:
    """``(kind, text, origin, sets)``: a config and its overrides as the
    native module takes them."""
    kind, text, origin = source(config)
    return kind, text, origin, sets(overrides(mapping, keywords))
