#!/usr/bin/env python3
"""GPU use of a sharing sweep counted in fractions of a GPU, from each run's files (issue 20): markdown
tables like tables.py's, each cell "mean [95% interval]" over the seeds, or with --vs-none the paired
change against the cell that differs only by `gpu-sharing: none` (same seed, so the same trace).

    python3 analysis/studies/sharing_use.py SWEEP_DIR [--vs-none] [--window makespan|arrivals|FROM:[TO]]

Until summary.csv counts fractions (docs/sharing.md, "Missing pieces"), its `gpu_utilization` and
`idle_gpu_hours` count a sharing job's whole GPU, once per job sharing it. The measures here do not:

The GPU measures are taken over a window: the makespan (the default, as summary.csv's), the arrivals
(first to last submission of the jobs that ran: the steady state, without the drain after the last
arrival), or FROM:TO seconds of simulated time (TO empty: the makespan's end).

- `occupancy`: GPUs holding a job, a GPU holding shares counted once (timeseries.csv `busy_gpus`),
  over platform GPUs x the window.
- `compute_use`: what the jobs ask, over platform GPUs x the window: a job asking part of a GPU (SWF
  field 19) counts that part of its GPU over its run, a whole-GPU job its GPUs. A job is assumed to use
  what it asks and no more (nvlsim has no per-job utilization): this is the utilization the pooling
  claim speaks of, under that assumption.
- `use_of_occupied`: compute_use / occupancy, how full the GPUs holding jobs are.
- `use_of_fractional_gpus`: the same for the GPUs holding jobs that ask part of a GPU: their asked
  fractions over the time such GPUs hold at least one of them (whole-GPU jobs left out).
- `idle_gpu_hours_ts`: GPU-hours of GPUs holding no job in the window (timeseries.csv `free_gpus` +
  `held_idle_gpus`); over the makespan, summary.csv's `idle_gpu_hours` counted with shared GPUs once.
- `wait_fractional`, `wait_whole`: mean waiting time of the jobs asking part of a GPU, and of the others.
"""

import argparse
import gzip
import json
import math
import os
import sys

import pandas as pd

METRICS = ["occupancy", "compute_use", "use_of_occupied", "use_of_fractional_gpus", "idle_gpu_hours_ts",
           "wait_fractional", "wait_whole"]
SHARES = {"occupancy", "compute_use", "use_of_occupied", "use_of_fractional_gpus"}
# Student t, 97.5% quantile, by degrees of freedom (the sweep's own intervals use the same).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}


def gpu_milli(trace):
    """Job number -> gpu_milli (0 for whole GPUs) of an SWF trace, plain or .gz."""
    opener = gzip.open if trace.endswith(".gz") else open
    milli, declared = {}, False
    with opener(trace, "rt") as lines:
        for line in lines:
            if line.startswith(";"):
                declared = declared or line.replace(" ", "").startswith(";Field19:gpu_milli")
                continue
            fields = line.split()
            if fields:
                m = int(fields[18]) if declared else -1
                milli[int(fields[0])] = m if 0 < m < 1000 else 0
    return milli


def count_gpus(interval_set):
    """GPUs in a Batsim interval set such as `0-31 72-79`."""
    total = 0
    for part in str(interval_set).split():
        low, _, high = part.partition("-")
        total += int(high or low) - int(low) + 1
    return total


def run_measures(run_dir, trace, window):
    """One row per policy of one finished run."""
    gpus = json.load(open(os.path.join(run_dir, "run.json")))["platform"]["gpus"]
    milli = gpu_milli(trace)
    jobs = pd.read_csv(os.path.join(run_dir, "jobs.csv"))
    attempts = pd.read_csv(os.path.join(run_dir, "attempts.csv"))
    series = pd.read_csv(os.path.join(run_dir, "timeseries.csv"))
    rows = []
    for policy, pjobs in jobs.groupby("policy", sort=False):
        ran = pjobs[pjobs["starting_time"].notna()]
        start, end = ran["submission_time"].min(), ran["finish_time"].max()
        if window == "arrivals":
            end = ran["submission_time"].max()
        elif window != "makespan":
            low, _, high = window.partition(":")
            start, end = float(low), float(high) if high else end
        capacity = gpus * (end - start)
        ts = series[series["policy"] == policy].sort_values("time")
        held = ts["time"].clip(start, end)
        dt = held.shift(-1, fill_value=end) - held
        att = attempts[attempts["policy"] == policy]
        part = att["job_id"].map(milli).fillna(0) / 1000
        asked = part.where(part > 0, att["allocated_resources"].map(count_gpus))
        overlap = (att["finish_time"].clip(start, end) - att["starting_time"].clip(start, end))
        fractional = ran["job_id"].map(milli).fillna(0) > 0
        # Time each GPU holds at least one fractional job, from their attempts' starts and ends.
        shared = att[part > 0]
        events = pd.concat([
            pd.DataFrame({"gpu": shared["allocated_resources"], "time": shared["starting_time"].clip(start, end),
                          "step": 1}),
            pd.DataFrame({"gpu": shared["allocated_resources"], "time": shared["finish_time"].clip(start, end),
                          "step": -1})]).sort_values(["gpu", "time", "step"])
        events["holding"] = events.groupby("gpu")["step"].cumsum()
        events["next"] = events.groupby("gpu")["time"].shift(-1)
        held_shared = ((events["next"] - events["time"]) * (events["holding"] > 0)).sum()
        rows.append({
            "policy": policy,
            "occupancy": (ts["busy_gpus"] * dt).sum() / capacity,
            "compute_use": (asked * overlap).sum() / capacity,
            "use_of_fractional_gpus": (part * overlap).sum() / held_shared if held_shared > 0 else float("nan"),
            "idle_gpu_hours_ts": ((ts["free_gpus"] + ts["held_idle_gpus"]) * dt).sum() / 3600,
            "wait_fractional": ran.loc[fractional, "waiting_time"].mean(),
            "wait_whole": ran.loc[~fractional, "waiting_time"].mean(),
        })
        rows[-1]["use_of_occupied"] = rows[-1]["compute_use"] / rows[-1]["occupancy"]
    return rows


def interval(values):
    values = [v for v in values if not pd.isna(v)]
    n = len(values)
    if n == 0:
        return (float("nan"),) * 3
    mean = sum(values) / n
    if n < 2:
        return mean, float("nan"), float("nan")
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = T975.get(n - 1, 1.96) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def number(metric, value, change):
    if pd.isna(value):
        return ""
    sign = "+" if change else ""
    if metric in SHARES:
        return f"{100 * value:{sign}.1f} pp" if change else f"{100 * value:.1f}%"
    return f"{value:{sign},.0f}" if abs(value) >= 100 else f"{value:{sign}.3g}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep_dir")
    parser.add_argument("--vs-none", action="store_true",
                        help="the paired change against the same cell with gpu-sharing none")
    parser.add_argument("--window", default="makespan",
                        help="makespan (default), arrivals, or FROM:TO seconds (TO empty: the makespan's end)")
    parser.add_argument("--policies", help="comma-separated policies to show (default: all)")
    args = parser.parse_args()

    grid = json.load(open(os.path.join(args.sweep_dir, "sweep-grid.json")))
    cells, varying = grid["cells"], grid["varying"]
    rows = []
    for run in grid["runs"]:
        run_dir = os.path.join(args.sweep_dir, "runs", run["run"])
        if not os.path.exists(os.path.join(run_dir, "run-done.json")):
            continue
        settings = cells[run["cell"]]
        trace = settings.get("trace") or os.path.join(run_dir, "trace.swf")
        for row in run_measures(run_dir, trace, args.window):
            rows.append({"cell": run["cell"], "seed": run["seed"], **row})
    if not rows:
        sys.exit(f"sharing_use.py: no finished run in {args.sweep_dir}")
    table = pd.DataFrame(rows)
    if args.policies:
        table = table[table["policy"].isin(args.policies.split(","))]

    def key(cell, without_sharing=False):
        return tuple((s, cells[cell].get(s, "")) for s in sorted(cells[cell]) if not (without_sharing and
                                                                                      s == "gpu-sharing"))

    baseline = {}
    for cell, settings in enumerate(cells):
        if settings.get("gpu-sharing", "none") == "none" and "shards-per-gpu" not in settings:
            baseline.setdefault(key(cell, True), cell)

    shown = [s for s in varying if s != "policy-file"] + (["policy-file"] if "policy-file" in varying else [])
    metrics = [f"{m} (change vs none)" if args.vs_none else m for m in METRICS]
    print("| " + " | ".join(shown + ["policy", "n"] + metrics) + " |")
    print("|" + "---|" * (len(shown) + 2 + len(metrics)))
    for (cell, policy), group in table.groupby(["cell", "policy"], sort=False):
        settings = cells[cell]
        if args.vs_none:
            plain = {k: v for k, v in settings.items() if k != "shards-per-gpu"}
            base_cell = baseline.get(tuple((s, plain.get(s, "")) for s in sorted(plain) if s != "gpu-sharing"))
            if base_cell is None or base_cell == cell:
                continue
            base = table[(table["cell"] == base_cell) & (table["policy"] == policy)].set_index("seed")
            group = group.set_index("seed")
            seeds = group.index.intersection(base.index)
            stats = {m: interval(list(group.loc[seeds, m] - base.loc[seeds, m])) for m in METRICS}
            n = len(seeds)
        else:
            stats = {m: interval(list(group[m])) for m in METRICS}
            n = len(group)
        values = []
        for m in METRICS:
            mean, low, high = stats[m]
            text = number(m, mean, args.vs_none)
            values.append(text if pd.isna(low) else f"{text} [{number(m, low, args.vs_none)}, "
                                                      f"{number(m, high, args.vs_none)}]")
        names = [os.path.relpath(settings[s], os.path.dirname(grid["grid"])) if s == "policy-file" and s in settings
                 else settings.get(s, "—") for s in shown]
        print("| " + " | ".join(names + [policy, str(n)] + values) + " |")


if __name__ == "__main__":
    main()
