#!/usr/bin/env python3
"""Figures of an nvlsim sweep: each metric's mean over the seeds against a swept setting, per policy, with
its 95% confidence interval shaded.

    python3 analysis/sweep_plot.py SWEEP_DIR [--out DIR] [--metrics m1,m2]

reads SWEEP_DIR/sweep_summary.csv (`nvlsim sweep`, docs/output.md) and writes into DIR (default
SWEEP_DIR/plots) sweep-METRIC-by-SETTING.png and, when per-gpu is among the policies,
sweep-METRIC-vs-per-gpu-by-SETTING.png (the paired change against per-gpu), for every setting that varies
between cells. When several settings vary, a figure has one panel per combination of the others' values.
`nvlsim sweep --plots` runs this script; analysis/sweep.ipynb imports it. Layout: docs/sweep.md#plots.
Needs Debian's python3-pandas and python3-matplotlib.
"""

import argparse
import math
import pathlib
import sys

import matplotlib
import pandas as pd

# Drawn when --metrics is not given, those of them the table has: what the studies compare policies by.
DEFAULT_METRICS = ["bw_utilization", "gpu_utilization", "goodput", "stranded_gpu_hours", "mean_waiting_time",
                   "makespan"]
UNITS = {"makespan": "s", "mean_waiting_time": "s", "stranded_gpu_hours": "GPU-h"}
REQUIRED = ["cell", "policy", "metric", "n", "mean", "ci95_low", "ci95_high"]
STATISTICS = ["mean", "ci95_low", "ci95_high", "vs_per_gpu_mean", "vs_per_gpu_ci95_low", "vs_per_gpu_ci95_high"]
BASELINE = "per-gpu"
UNSET = "(unset)"  # a cell that does not give the setting
PANEL_COLUMNS = 3


class SweepError(Exception):
    """sweep_summary.csv is missing or not one."""


def load(sweep_dir):
    """SWEEP_DIR/sweep_summary.csv as a DataFrame; raises SweepError saying what is wrong with it."""
    path = pathlib.Path(sweep_dir) / "sweep_summary.csv"
    if not path.is_file():
        raise SweepError(f"{path}: not found (`nvlsim sweep` or `nvlsim sweep collect` writes it)")
    try:
        # An empty field is a missing value, but a setting spelled "NA" or "null" stays what it says.
        table = pd.read_csv(path, keep_default_na=False, na_values=[""])
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        raise SweepError(f"{path}: not a CSV table: {e}") from None
    missing = [c for c in REQUIRED if c not in table.columns]
    if missing or table.columns.get_loc("cell") > table.columns.get_loc("policy"):
        raise SweepError(f"{path}: not a sweep_summary.csv (no column {', '.join(missing) or 'cell before policy'};"
                         " docs/output.md)")
    for column in STATISTICS:
        if column in table.columns:
            try:
                table[column] = pd.to_numeric(table[column])
            except ValueError as e:
                raise SweepError(f"{path}: column {column}: {e}") from None
    return table


def settings(table):
    """The setting columns: those between `cell` and `policy`."""
    return list(table.columns[table.columns.get_loc("cell") + 1:table.columns.get_loc("policy")])


def varying(table):
    """The settings with more than one value over the cells (an unset setting counts as a value)."""
    cells = table.drop_duplicates("cell")
    return [s for s in settings(table) if cells[s].nunique(dropna=False) > 1]


def label(value):
    if pd.isna(value):
        return UNSET
    return f"{value:g}" if isinstance(value, float) else str(value)


def positions(cells, setting):
    """Each cell's x for `setting` (a Series by cell) and the category names, or None when every cell gives a
    number: then the axis is numeric. Categories keep the cells' order, which is the grid's."""
    numbers = pd.to_numeric(cells[setting], errors="coerce")
    if numbers.notna().all():
        return pd.Series(numbers.to_numpy(), index=cells["cell"]), None
    labels = [label(v) for v in cells[setting]]
    categories = list(dict.fromkeys(labels))
    return pd.Series([categories.index(s) for s in labels], index=cells["cell"]), categories


def panels(cells, others):
    """The cells grouped by their values of the `others` settings, in cell order: [(title, [cell, ...])]."""
    groups = {}
    for _, cell in cells.iterrows():
        title = ", ".join(f"{s}={label(cell[s])}" for s in others)
        groups.setdefault(title, []).append(cell["cell"])
    return list(groups.items())


def metric_label(metric, change):
    unit = f" ({UNITS[metric]})" if metric in UNITS else ""
    return f"{metric}{unit}, change vs {BASELINE}" if change else f"{metric}{unit}"


def draw_panel(ax, rows, x, categories, policies, change):
    """One line (numeric setting) or one mark per category per policy, its interval shaded."""
    prefix = "vs_per_gpu_" if change else ""
    if change:
        ax.axhline(0, color="grey", linewidth=0.8, label=BASELINE)
    shown = [p for p in policies if not (change and p == BASELINE)]
    for i, policy in enumerate(policies):
        if policy not in shown:
            continue
        r = rows[rows["policy"] == policy].copy()
        r["x"] = r["cell"].map(x)
        r = r.sort_values("x")
        color = f"C{i}"  # by the policy's place in the sweep, so every figure gives it the same colour
        mean, low, high = r[prefix + "mean"], r[prefix + "ci95_low"], r[prefix + "ci95_high"]
        if categories is None:
            ax.plot(r["x"], mean, marker="o", color=color, label=policy)
            ax.fill_between(r["x"], low, high, color=color, alpha=0.2, linewidth=0)
            # The band needs two points; a cell alone on its panel still shows its interval.
            ax.vlines(r["x"], low, high, color=color, alpha=0.5)
        else:
            # Side by side within a category, an interval as a shaded box: no line joins categories.
            width = 0.8 / len(shown)
            at = r["x"] + (shown.index(policy) - (len(shown) - 1) / 2) * width
            ax.bar(at, high - low, bottom=low, width=width * 0.9, color=color, alpha=0.25)
            ax.plot(at, mean, marker="o", linestyle="none", color=color, label=policy)
    if categories is not None:
        ax.set_xticks(range(len(categories)), categories)


def figure(table, metric, setting, change=False):
    """`metric` against `setting` per policy, one panel per combination of the other varying settings."""
    from matplotlib.figure import Figure  # no pyplot: figures stay out of any global state

    cells = table.drop_duplicates("cell")
    x, categories = positions(cells, setting)
    groups = panels(cells, [s for s in varying(table) if s != setting])
    rows = table[table["metric"] == metric]
    policies = list(dict.fromkeys(table["policy"]))
    columns = min(len(groups), PANEL_COLUMNS)
    lines = math.ceil(len(groups) / columns)
    fig = Figure(figsize=(4.5 * columns, 3.2 * lines + 0.5), layout="constrained")
    axes = fig.subplots(lines, columns, sharex=True, sharey=True, squeeze=False).flatten()
    for i, (ax, (title, group)) in enumerate(zip(axes, groups)):
        draw_panel(ax, rows[rows["cell"].isin(group)], x, categories, policies, change)
        ax.set_title(title, fontsize="medium")
        ax.set_xlabel(setting)
        if i % columns == 0:  # the panels share their y axis
            ax.set_ylabel(metric_label(metric, change))
    for ax in axes[len(groups):]:
        ax.set_visible(False)
    axes[0].legend(fontsize="small")
    fig.suptitle(f"{metric_label(metric, change)} by {setting}: mean over the seeds, 95% interval shaded")
    return fig


def figure_name(metric, setting, change):
    return f"sweep-{metric}-vs-{BASELINE}-by-{setting}.png" if change else f"sweep-{metric}-by-{setting}.png"


def figures(table, metrics=None):
    """Every figure of the sweep by file name, in a fixed order: metrics, then settings, value before change."""
    known = set(table["metric"])
    if metrics is None:
        metrics = [m for m in DEFAULT_METRICS if m in known]
    unknown = [m for m in metrics if m not in known]
    if unknown:
        raise SweepError(f"no metric {', '.join(unknown)} in sweep_summary.csv")
    baseline = BASELINE in set(table["policy"]) and "vs_per_gpu_mean" in table.columns
    result = {}
    for metric in metrics:
        for setting in varying(table):
            for change in [False, True] if baseline else [False]:
                result[figure_name(metric, setting, change)] = figure(table, metric, setting, change)
    return result


def render(sweep_dir, out_dir=None, metrics=None):
    """Writes the figures into out_dir (default SWEEP_DIR/plots), removing sweep-*.png files of an earlier
    sweep it does not draw again, so that the folder holds this sweep's figures; returns them by name."""
    out = pathlib.Path(out_dir) if out_dir else pathlib.Path(sweep_dir) / "plots"
    drawn = figures(load(sweep_dir), metrics)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("sweep-*.png"):
        if old.name not in drawn:
            old.unlink()
    for name, fig in drawn.items():
        fig.savefig(out / name, dpi=100)
    return drawn


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep_dir")
    parser.add_argument("--out", help="folder of the PNGs (default: SWEEP_DIR/plots)")
    parser.add_argument("--metrics", help="comma-separated metrics of sweep_summary.csv (default: "
                        + ",".join(DEFAULT_METRICS) + ", those present)")
    args = parser.parse_args()
    matplotlib.use("Agg")
    try:
        drawn = render(args.sweep_dir, args.out, args.metrics.split(",") if args.metrics else None)
    except (SweepError, OSError) as e:
        sys.exit(f"sweep_plot.py: {e}")
    if not drawn:
        print(f"sweep_plot.py: {args.sweep_dir}: no setting varies between cells, no figure drawn", file=sys.stderr)


if __name__ == "__main__":
    main()
