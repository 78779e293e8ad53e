#!/usr/bin/env python3
"""Figures of one nvlsim run, compared across its policies.

    python3 analysis/plot.py OUTDIR

reads jobs.csv, summary.csv, timeseries.csv and run.json from OUTDIR (nvlsim --out) and writes the PNGs
listed in FIGURES there. `nvlsim --plots` runs this script; analysis/compare_policies.ipynb imports it.
Needs Debian's python3-pandas and python3-matplotlib.
"""

import json
import pathlib
import sys

import matplotlib
import pandas as pd

HOUR = 3600.0


def load(out_dir):
    """The run's tables: jobs, summary, timeseries (pandas DataFrames) and the platform's GPU count."""
    out = pathlib.Path(out_dir)
    jobs = pd.read_csv(out / "jobs.csv")
    summary = pd.read_csv(out / "summary.csv")
    timeseries = pd.read_csv(out / "timeseries.csv")
    gpus = json.loads((out / "run.json").read_text())["platform"]["gpus"]
    return jobs, summary, timeseries, gpus


def allocated_gpus(jobs):
    """GPUs each job ran on, counted from `allocated_resources` ("0-7 72-79"); 0 for jobs that never ran.

    Not `requested_number_of_resources`: under --request-shape nodes a job rounded up to whole trays holds
    more GPUs than the trace asked, and runs on all of them.
    """

    def count(cell):
        if pd.isna(cell):
            return 0
        if not isinstance(cell, str):  # a lone GPU id, read as a number
            return 1
        total = 0
        for part in cell.split():
            first, _, last = part.partition("-")
            total += int(last or first) - int(first) + 1
        return total

    return jobs["allocated_resources"].map(count)


def _policies(summary):
    return list(summary["policy"])


def _new_axes(title, xlabel, ylabel):
    from matplotlib.figure import Figure  # no pyplot: figures stay out of any global state

    fig = Figure(figsize=(8, 4.5), layout="constrained")
    ax = fig.add_subplot()
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return fig, ax


def gpu_utilization(timeseries, summary, gpus):
    """Share of the platform's GPUs running a job, over time, per policy."""
    fig, ax = _new_axes("GPU utilization over time", "time (h)", "busy GPUs / all GPUs")
    for policy in _policies(summary):
        ts = timeseries[timeseries["policy"] == policy]
        ax.step(ts["time"] / HOUR, ts["busy_gpus"] / gpus, where="post", label=policy, linewidth=0.8)
    ax.set_ylim(0, 1.05)
    ax.legend()
    return fig


def waiting_time_cdf(jobs, summary):
    """Cumulative distribution of the waiting time of the jobs that ran, per policy."""
    fig, ax = _new_axes("Waiting time", "waiting time (h)", "share of jobs that ran")
    for policy in _policies(summary):
        wait = jobs.loc[(jobs["policy"] == policy) & (jobs["final_state"] != "REJECTED"), "waiting_time"]
        wait = wait.sort_values().to_numpy() / HOUR
        if len(wait):
            ax.step(wait, [(i + 1) / len(wait) for i in range(len(wait))], where="post", label=policy)
    ax.set_xscale("symlog", linthresh=0.1)
    ax.set_ylim(0, 1.02)
    ax.legend()
    return fig


def bw_efficiency_histogram(jobs, summary):
    """bw_efficiency of the jobs that communicated, weighted by GPU-hours (as bw_utilization is)."""
    fig, ax = _new_axes("NVLink bandwidth efficiency", "bw_efficiency", "GPU-hours")
    values, weights, labels = [], [], []
    for policy in _policies(summary):
        j = jobs[(jobs["policy"] == policy) & jobs["bw_efficiency"].notna()]
        values.append(j["bw_efficiency"])
        weights.append(allocated_gpus(j) * j["execution_time"] / HOUR)
        labels.append(policy)
    ax.hist(values, bins=[i / 20 for i in range(21)], weights=weights, label=labels)
    ax.legend()
    return fig


IDLE_PARTS = [
    ("idle_no_demand_cost_usd", "no demand (queue empty)"),
    ("idle_scheduling_cost_usd", "scheduling (jobs waiting)"),
    ("idle_failure_cost_usd", "failures"),
]


def idle_cost_breakdown(summary):
    """Idle cost per policy, stacked by cause, with the placement slowdown's cost beside it."""
    fig, ax = _new_axes("Cost of idle GPUs", "policy", "US$")
    x = range(len(summary))
    bottom = [0.0] * len(summary)
    for column, label in IDLE_PARTS:
        ax.bar(x, summary[column], bottom=bottom, label=label, width=0.6)
        bottom = [b + v for b, v in zip(bottom, summary[column])]
    ax.scatter(x, summary["slowdown_cost_usd"], color="black", marker="_", s=400, label="slowdown (placement)")
    ax.set_xticks(list(x), summary["policy"])
    ax.legend()
    return fig


def fragmentation_over_time(timeseries, summary):
    """Stranded GPUs (free but unusable by a waiting job) and FGD fragment GPUs over time, per policy."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 6), layout="constrained")
    stranded, fgd = fig.subplots(2, 1, sharex=True)
    stranded.set_title("Fragmentation over time")
    stranded.set_ylabel("stranded GPUs")
    fgd.set_ylabel("FGD fragment GPUs")
    fgd.set_xlabel("time (h)")
    for policy in _policies(summary):
        ts = timeseries[timeseries["policy"] == policy]
        stranded.step(ts["time"] / HOUR, ts["stranded_gpus"], where="post", label=policy, linewidth=0.8)
        fgd.step(ts["time"] / HOUR, ts["fgd_fragment_gpus"], where="post", label=policy, linewidth=0.8)
    stranded.legend()
    return fig


def figures(out_dir):
    """Every figure of the run, by its file name."""
    jobs, summary, timeseries, gpus = load(out_dir)
    return {
        "gpu_utilization.png": gpu_utilization(timeseries, summary, gpus),
        "waiting_time_cdf.png": waiting_time_cdf(jobs, summary),
        "bw_efficiency_hist.png": bw_efficiency_histogram(jobs, summary),
        "idle_cost.png": idle_cost_breakdown(summary),
        "fragmentation.png": fragmentation_over_time(timeseries, summary),
    }


def render(out_dir):
    for name, fig in figures(out_dir).items():
        fig.savefig(pathlib.Path(out_dir) / name, dpi=100)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: plot.py OUTDIR")
    matplotlib.use("Agg")
    render(sys.argv[1])
