"""How much slower a sync is with entity linking on (issue 8's figure), from interleaved rounds.

Single syncs vary by several points from one run to the next on the same code, so one sync per
setting says little. This runs `bench/sync_throughput.py` (each sync in its own process) in
`--rounds` rounds, and in each round once per setting: `off` (`--graph-linking off`), `warm` (linking
on, the annotation worker already running, as a server's later syncs find it) and `cold` (linking
on, the sync starts the worker; one of fewer than 1,000 records links in its own process instead).
Interleaving keeps a slow spell of the machine from landing on one setting only. "Slower" is the
drop in records per second against `off`: 1 - on/off, of the medians, and per round. Run it on an
otherwise idle machine. Every sync's own JSON lines are printed too, with `run` (setting and round)
added to their params; then one summary line per linking setting.

    .venv/bin/python bench/sync_linking_overhead.py --data ../shared/data --records 3000 --rounds 5
        [--database-url postgresql://postgres@127.0.0.1:5432/test] [--latency-ms 200] [--cache-from DIR]
        [--prefill 3000]   # time a later sync: --records 6000 --prefill 3000 times the second 3,000
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from figures import emit

SYNC_BENCH = Path(__file__).with_name("sync_throughput.py")
SETTINGS = {"off": ["--graph-linking", "off"], "warm": ["--warm-worker"], "cold": []}


def sync_once(args: argparse.Namespace, setting: str, run: str) -> dict[str, float]:
    command = [sys.executable, str(SYNC_BENCH), "--data", str(args.data), "--records", str(args.records),
               "--latency-ms", str(args.latency_ms), *SETTINGS[setting]]
    if args.database_url:
        command += ["--database-url", args.database_url]
    if args.cache_from is not None:
        command += ["--cache-from", str(args.cache_from)]
    if args.prefill:
        command += ["--prefill", str(args.prefill)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{run}: sync_throughput.py failed ({done.returncode}):\n{done.stderr[-2000:]}")
    values: dict[str, float] = {}
    for line in done.stdout.splitlines():
        if not line.startswith("{"):
            continue
        record = json.loads(line)
        emit(record["name"], record["value"], record["unit"], record["params"], run=run)
        values[record["name"]] = record["value"]
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--records", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--settings", default="off,warm,cold", help="off and at least one of warm, cold")
    parser.add_argument("--database-url", default=None, help="a PostgreSQL URL; default SQLite")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="added to every fake E-utilities answer")
    parser.add_argument("--cache-from", type=Path, default=None, help="a folder of prebuilt linker/vocabulary pickles")
    parser.add_argument("--prefill", type=int, default=0, help="records synced before each timed sync (of --records)")
    args = parser.parse_args()
    settings = args.settings.split(",")
    if "off" not in settings or not set(settings) - {"off"} or not set(settings) <= set(SETTINGS):
        parser.error("--settings: off and at least one of warm, cold")

    rates: dict[str, list[float]] = {setting: [] for setting in settings}
    cpu: dict[str, list[float]] = {setting: [] for setting in settings}
    for number in range(1, args.rounds + 1):
        for setting in settings:
            values = sync_once(args, setting, f"{setting}-{number}")
            rates[setting].append(values["sync_records_per_s"])
            cpu[setting].append(values["sync_cpu_ms_per_record"])

    off = statistics.median(rates["off"])
    params = {"records": args.records, "rounds": args.rounds, "latency_ms": args.latency_ms,
              "database": "postgresql" if args.database_url else "sqlite", "prefill": args.prefill}
    for setting in settings:
        if setting == "off":
            continue
        on = statistics.median(rates[setting])
        emit(
            "sync_linking_slowdown", 1 - on / off, "fraction",
            {
                **params, "setting": setting,
                "records_per_s": round(on, 1), "off_records_per_s": round(off, 1),
                "per_round": [round(1 - rate / base, 4) for rate, base in zip(rates[setting], rates["off"], strict=True)],
                "cpu_ms_per_record": round(statistics.median(cpu[setting]), 3),
                "off_cpu_ms_per_record": round(statistics.median(cpu["off"]), 3),
            },
        )


if __name__ == "__main__":
    main()
