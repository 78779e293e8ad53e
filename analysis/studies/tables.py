#!/usr/bin/env python3
"""Markdown tables of a sweep's results for docs/findings.md: each metric's mean over the seeds with its
95% confidence interval (Student t, from sweep_summary.csv), by policy and by the swept settings.

    python3 analysis/studies/tables.py SWEEP_DIR --metrics bw_utilization,gpu_utilization [--vs-per-gpu]
"""

import argparse
import sys

import pandas as pd

# Metrics that are shares print as percentages; the rest with a precision that suits their size.
SHARES = {"bw_utilization", "gpu_utilization", "nvlink_utilization", "ib_utilization", "goodput", "availability",
          "fragmentation", "fgd_fragmentation", "bw_efficiency_p10", "bw_efficiency_p50",
          "bw_efficiency_p90"}


def number(metric, value, change, shares=SHARES):
    """A value, or with `change` a difference: the metrics in `shares` in percentage points, signed."""
    if pd.isna(value):
        return ""
    sign = "+" if change else ""
    if metric in shares:
        return f"{100 * value:{sign}.1f} pp" if change else f"{100 * value:.1f}%"
    return f"{value:{sign},.0f}" if abs(value) >= 100 else f"{value:{sign}.3g}"


def cell_text(metric, mean, low, high, change, shares=SHARES):
    """ "mean [low, high]", or the mean alone without an interval."""
    text = number(metric, mean, change, shares)
    if pd.isna(low):
        return text
    return f"{text} [{number(metric, low, change, shares)}, {number(metric, high, change, shares)}]"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep_dir")
    parser.add_argument("--metrics", required=True, help="comma-separated metric names of sweep_summary.csv")
    parser.add_argument("--vs-per-gpu", action="store_true",
                        help="the paired change against per-gpu instead of the value")
    parser.add_argument("--policies", help="comma-separated policies to show (default: all)")
    args = parser.parse_args()

    table = pd.read_csv(f"{args.sweep_dir}/sweep_summary.csv", keep_default_na=False, na_values=[""])
    metrics = args.metrics.split(",")
    unknown = sorted(set(metrics) - set(table["metric"]))
    if unknown:
        sys.exit(f"tables.py: no metric {', '.join(unknown)} in {args.sweep_dir}/sweep_summary.csv")
    settings = list(table.columns[1:table.columns.get_loc("policy")])
    if args.policies:
        table = table[table["policy"].isin(args.policies.split(","))]
    prefix = "vs_per_gpu_" if args.vs_per_gpu else ""
    mean, low, high = (f"{prefix}mean", f"{prefix}ci95_low", f"{prefix}ci95_high")

    header = settings + ["policy", "n"] + [f"{m} (change vs per-gpu)" if args.vs_per_gpu else m for m in metrics]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for (cell, policy), rows in table.groupby(["cell", "policy"], sort=False):
        by_metric = rows.set_index("metric")
        first = rows.iloc[0]
        values = [cell_text(m, by_metric.at[m, mean], by_metric.at[m, low], by_metric.at[m, high],
                  args.vs_per_gpu) for m in metrics]
        # A cell without the setting shows a dash; numbers as written in the grid (pandas reads 1 as 1.0
        # in a column with empty cells).
        shown = ["—" if pd.isna(first[s]) else f"{first[s]:g}" if isinstance(first[s], float) else str(first[s])
                 for s in settings]
        print("| " + " | ".join(shown + [policy, str(first["n"])] + values) + " |")


if __name__ == "__main__":
    main()
