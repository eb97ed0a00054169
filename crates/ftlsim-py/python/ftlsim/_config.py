"""Configs as the native module takes them: a path, TOML text or a dict,
plus ``key.path=value`` overrides."""

from __future__ import annotations

import json
import math
import os
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np

Config = Union[None, str, "os.PathLike[str]", Mapping[str, Any]]


def source(config: Config) -> Tuple[str, str, str]:
    """``(kind, text, origin)``: kind "toml" or "json", origin names it in errors."""
    if config is None:
        return ("toml", "", "built-in defaults")
    if isinstance(config, Mapping):
        return ("json", json.dumps(_plain(config)), "<dict>")
    if isinstance(config, os.PathLike):
        config = os.fspath(config)
    if isinstance(config, str):
        looks_like_path = "\n" not in config and "=" not in config and "[" not in config
        if looks_like_path:
            if not os.path.exists(config):
                from ._native import FtlsimError

                raise FtlsimError(f"cannot read config {config}: no such file")
            with open(config, encoding="utf-8") as f:
                return ("toml", f.read(), config)
        return ("toml", config, "<string>")
    raise TypeError(
        f"config must be a path, TOML text or a dict, not {type(config).__name__}"
    )


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
    """A Python value as a TOML value for ``key=value``."""
    value = _plain(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} is not a finite number")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot use {type(value).__name__} {value!r} as a config value")


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
    return [f"{key}={toml_value(value)}" for key, value in items.items()]


def native_args(
    config: Config, mapping: Optional[Mapping[str, Any]], keywords: Mapping[str, Any]
) -> Tuple[str, str, str, List[str]]:
    """``(kind, text, origin, sets)``: a config and its overrides as the
    native module takes them."""
    kind, text, origin = source(config)
    return kind, text, origin, sets(overrides(mapping, keywords))
