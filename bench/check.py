"""Runs the benchmarks `bench/expected.toml` names and compares each figure with its bar.

Prints one JSON line per figure (bench/figures.py's form, unit "pass" with the measured value and
the bar in its parameters) and exits 1 when a figure misses its bar or was not printed at all.

    .venv/bin/python bench/check.py                      # every figure (tens of minutes)
    .venv/bin/python bench/check.py --only thai_wrong_herb_hits
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from figures import emit

BENCH = Path(__file__).resolve().parent
DATA = BENCH.parent.parent / "shared" / "data"


def _command(figure: dict[str, Any], scratch: Path, data: Path) -> tuple[str, ...]:
    parts = [part.format(data=data, scratch=scratch) for part in figure["command"]]
    return (sys.executable, str(BENCH.parent / parts[0]), *parts[1:])


def _lines(command: tuple[str, ...]) -> list[dict[str, Any]]:
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=BENCH.parent)
    if done.returncode != 0:
        sys.stderr.write(f"{' '.join(command[1:])} failed ({done.returncode}):\n{done.stderr[-2000:]}\n")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith('{"name"')]


def _meets(value: float, figure: dict[str, Any]) -> bool:
    return figure.get("at_least", value) <= value <= figure.get("at_most", value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], help="a figure's name (repeatable)")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    figures = tomllib.loads((BENCH / "expected.toml").read_text(encoding="utf-8"))["figure"]
    if args.only:
        figures = [figure for figure in figures if figure["name"] in args.only]
    missed = 0
    with tempfile.TemporaryDirectory(prefix="bio-mcp-check-") as scratch:
        runs: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for figure in figures:
            command = _command(figure, Path(scratch), args.data)
            if command not in runs:
                runs[command] = _lines(command)
            where = figure.get("where", {})
            found = [line for line in runs[command] if line["name"] == figure["name"]
                     and all(line["params"].get(key) == value for key, value in where.items())]
            value = found[-1]["value"] if found else None
            ok = value is not None and _meets(value, figure)
            missed += not ok
            bar = {key: figure[key] for key in ("at_least", "at_most") if key in figure}
            emit(figure["name"], value, "pass" if ok else "fail", bar=bar, where=where,
                 previously=figure.get("measured"), script=figure["command"][0])
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
