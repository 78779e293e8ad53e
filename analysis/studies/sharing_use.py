#!/usr/bin/env python3
"""GPU use of a sharing sweep that summary.csv does not give (issue 20): markdown tables like tables.py's,
each cell "mean [95% interval]" over the seeds, or with --vs KEY=VALUE the paired change against the cell
that differs only by KEY set to VALUE (same seed, so the same trace): `--vs gpu-sharing=none` pairs a
sharing cell with its cell without sharing (its shards-per-gpu and sharing-interference dropped),
`--vs sharing-interference=0` a cell with its cell without interference.

    python3 analysis/studies/sharing_use.py SWEEP_DIR [--vs KEY=VALUE] [--window makespan|arrivals|FROM:[TO]]
                                            [--summary gpu_utilization,mean_waiting_time,...]

summary.csv counts what jobs hold: GPUs x `gpu_share` (K/N shards, K/100 MPS, 1 whole), a shared GPU
once. Read it for held-share utilization (`gpu_utilization`), idle GPU-time (`idle_gpu_hours`,
`idle_cost_usd`), GPU-time lost to interference (`slowdown_gpu_hours`), jobs killed at their time limit
(`nb_jobs_killed`) and fragmentation (`fgd_fragmentation`); `--summary` adds any of its columns to the
table (over the makespan, whatever the window), so that they too can be paired with --vs.
What it does not give, measured here over a window (the makespan, as summary.csv's, by default; the
arrivals, first to last submission of the jobs that ran; or FROM:TO seconds, TO empty for the makespan's
end), over platform GPUs x the window:

- `asked_use`: what the jobs ask rather than hold: a job asking part of a GPU (SWF field 19) counts that
  part over its run, a whole-GPU job its GPUs. Over the makespan, summary's `gpu_utilization` minus this
  is the rounding up to whole shards (or, without sharing, to a whole GPU). A job is assumed to use what it
  asks and no more (nvlsim has no per-job utilization): the utilization the pooling claim speaks of.
- `work_use`: the same at each job's speed alone: its attempts' `work_done_time` (trace run time got
  through) spread over their run. Below `asked_use` by the time interference (and placement) slowed jobs;
  an attempt killed at its time limit counts nothing.
- `fractional_gpu_use`: the asked fractions over the time GPUs hold at least one job asking part of a GPU
  (whole-GPU jobs left out): how full pooling makes the GPUs that hold fractional jobs.
- `wait_fractional`, `wait_whole`: mean waiting time of the jobs asking part of a GPU, and of the others.
"""

import argparse
import gzip
import json
import math
import os
import sys

import pandas as pd

from tables import cell_text

METRICS = ["asked_use", "work_use", "fractional_gpu_use", "wait_fractional", "wait_whole"]
SHARES = {"asked_use", "work_use", "fractional_gpu_use", "gpu_utilization", "goodput", "fragmentation",
          "fgd_fragmentation"}
SHARING = {"gpu-sharing", "shards-per-gpu", "sharing-interference"}
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


def run_measures(run_dir, trace, window, summary_columns):
    """One row per policy of one finished run."""
    gpus = json.load(open(os.path.join(run_dir, "run.json")))["platform"]["gpus"]
    milli = gpu_milli(trace)
    jobs = pd.read_csv(os.path.join(run_dir, "jobs.csv"))
    attempts = pd.read_csv(os.path.join(run_dir, "attempts.csv"))
    summary = pd.read_csv(os.path.join(run_dir, "summary.csv")).set_index("policy")
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
        att = attempts[attempts["policy"] == policy]
        part = att["job_id"].map(milli).fillna(0) / 1000
        asked = part.where(part > 0, att["allocated_resources"].map(count_gpus))
        overlap = att["finish_time"].clip(start, end) - att["starting_time"].clip(start, end)
        speed = (att["work_done_time"].fillna(0) / att["execution_time"]).where(att["execution_time"] > 0, 0)
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
            "asked_use": (asked * overlap).sum() / capacity,
            "work_use": (asked * overlap * speed).sum() / capacity,
            "fractional_gpu_use": (part * overlap).sum() / held_shared if held_shared > 0 else float("nan"),
            "wait_fractional": ran.loc[fractional, "waiting_time"].mean(),
            "wait_whole": ran.loc[~fractional, "waiting_time"].mean(),
            **{c: summary.loc[policy, c] for c in summary_columns},
        })
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep_dir")
    parser.add_argument("--vs", metavar="KEY=VALUE",
                        help="the paired change against the cell that differs only by KEY=VALUE")
    parser.add_argument("--window", default="makespan",
                        help="makespan (default), arrivals, or FROM:TO seconds (TO empty: the makespan's end)")
    parser.add_argument("--summary", default="", help="comma-separated summary.csv columns to show as well")
    parser.add_argument("--policies", help="comma-separated policies to show (default: all)")
    args = parser.parse_args()

    grid = json.load(open(os.path.join(args.sweep_dir, "sweep-grid.json")))
    cells, varying = grid["cells"], grid["varying"]
    extra = [c for c in args.summary.split(",") if c]
    metrics = METRICS + extra
    rows = []
    for run in grid["runs"]:
        run_dir = os.path.join(args.sweep_dir, "runs", run["run"])
        if not os.path.exists(os.path.join(run_dir, "run-done.json")):
            continue
        settings = cells[run["cell"]]
        trace = settings.get("trace") or os.path.join(run_dir, "trace.swf")
        for row in run_measures(run_dir, trace, args.window, extra):
            rows.append({"cell": run["cell"], "seed": run["seed"], **row})
    if not rows:
        sys.exit(f"sharing_use.py: no finished run in {args.sweep_dir}")
    table = pd.DataFrame(rows)
    if args.policies:
        table = table[table["policy"].isin(args.policies.split(","))]

    def reference(cell):
        """The cell that differs from `cell` only by --vs's KEY=VALUE, or None."""
        key, _, value = args.vs.partition("=")
        target = {k: str(v) for k, v in cells[cell].items()
                  if not (key == "gpu-sharing" and value == "none" and k in SHARING)}
        target[key] = value
        found = [c for c, s in enumerate(cells) if {k: str(v) for k, v in s.items()} == target]
        return found[0] if found and found[0] != cell else None

    shown = [s for s in varying if s != "policy-file"] + (["policy-file"] if "policy-file" in varying else [])
    print("| " + " | ".join(shown + ["policy", "n"] + [f"Δ {m}" if args.vs else m
                                                       for m in metrics]) + " |")
    print("|" + "---|" * (len(shown) + 2 + len(metrics)))
    for (cell, policy), group in table.groupby(["cell", "policy"], sort=False):
        settings = cells[cell]
        if args.vs:
            base_cell = reference(cell)
            if base_cell is None:
                continue
            base = table[(table["cell"] == base_cell) & (table["policy"] == policy)].set_index("seed")
            group = group.set_index("seed")
            seeds = group.index.intersection(base.index)
            stats = {m: interval(list(group.loc[seeds, m] - base.loc[seeds, m])) for m in metrics}
            n = len(seeds)
        else:
            stats = {m: interval(list(group[m])) for m in metrics}
            n = len(group)
        values = []
        for m in metrics:
            mean, low, high = stats[m]
            values.append(cell_text(m, mean, low, high, bool(args.vs), SHARES))
        names = [os.path.relpath(settings[s], os.path.dirname(grid["grid"])) if s == "policy-file" and s in settings
                 else settings.get(s, "—") for s in shown]
        print("| " + " | ".join(names + [policy, str(n)] + values) + " |")


if __name__ == "__main__":
    main()
