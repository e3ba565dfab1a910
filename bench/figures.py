"""The one way a benchmark reports a figure: a JSON line with its name, value, unit and parameters,
stamped with the commit it measured and the machine's load when it did (a figure taken on a busy
machine says so, and one from another commit cannot pass for this one's)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from functools import cache
from pathlib import Path


@cache
def _commit() -> str | None:
    try:
        done = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=Path(__file__).parent,
                              capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def emit(name: str, value: object, unit: str, params: Mapping[str, object] | None = None, **more: object) -> None:
    """Print one figure; `params` and keyword parameters are merged (scripts use either)."""
    line = {
        "name": name,
        "value": round(value, 4) if isinstance(value, float) else value,
        "unit": unit,
        "params": {**(params or {}), **more},
        "commit": _commit(),
        "load_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }
    print(json.dumps(line, ensure_ascii=False), flush=True)
