#!/usr/bin/env python3
"""How nvlsim's replay cost scales, from the bench.json files nvlsim-bench writes.

    python3 tests/bench/plot_scaling.py BENCH_JSON... [OUT_PNG]

Runs of one policy without failures only. Left: wall time per policy against the number of jobs, one
line per platform, with the slope of linear growth for reference. Right: wall time against racks at
each trace length. Several files (runs measured at different times) are drawn together; a scenario and
policy measured in more than one is taken from the last. OUT_PNG (the last argument when it ends in
.png) defaults to docs/performance_scaling.png. Needs Debian's python3-matplotlib.
"""

import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend is chosen first)
from matplotlib.ticker import NullFormatter, ScalarFormatter  # noqa: E402

POLICY_COLORS = {"per-gpu": "tab:blue", "block": "tab:orange", "sub-block": "tab:green", "tree": "tab:red"}
RACK_STYLES = {8: ":", 64: "-", 256: "--", 1000: "-."}


def series(runs, key, fixed):
    """{(policy, fixed value): [(x, wall_s)]} sorted by x, grouping runs by policy and `fixed`."""
    out = {}
    for run in runs:
        out.setdefault((run["policy"], run[fixed]), []).append((run[key], run["wall_s"]))
    return {k: sorted(v) for k, v in out.items()}


def color(policy):
    return POLICY_COLORS.get(policy, "tab:gray")


def load_runs(paths):
    """The runs of every file, the last file's where a scenario and policy repeat, and the files' cores."""
    runs, cores = {}, set()
    for path in paths:
        bench = json.loads(pathlib.Path(path).read_text())
        cores.add(bench.get("cores", "?"))
        for run in bench["runs"]:
            runs[(run["scenario"], run["policy"])] = run
    return list(runs.values()), "/".join(str(c) for c in sorted(cores, key=str))


def main(argv):
    args = argv[1:]
    out = pathlib.Path(args.pop() if len(args) > 1 and args[-1].endswith(".png") else "docs/performance_scaling.png")
    if not args:
        sys.exit(__doc__)
    runs, cores = load_runs(args)
    # One policy at a time and no failures: the rows the scaling targets are about.
    runs = [r for r in runs if r["policy"] != "all" and not r["scenario"].endswith("-fail")]

    fig, (by_jobs, by_racks) = plt.subplots(1, 2, figsize=(12, 4.8))
    for (policy, racks), points in sorted(series(runs, "jobs", "racks").items()):
        xs, ys = zip(*points)
        by_jobs.plot(xs, ys, RACK_STYLES.get(racks, "-."), marker="o", color=color(policy),
                     label=f"{policy}, x{racks}")
    slowest_small = max((r for r in runs if r["jobs"] == min(x["jobs"] for x in runs)), key=lambda r: r["wall_s"])
    x0, y0 = slowest_small["jobs"], slowest_small["wall_s"]
    top = max(r["jobs"] for r in runs)
    by_jobs.plot([x0, top], [y0, y0 * top / x0], color="black", linewidth=0.8, label="linear in jobs")
    by_jobs.set(xscale="log", yscale="log", xlabel="jobs in the trace (load 0.9)", ylabel="wall time per policy (s)",
                title="Cost against trace length")
    by_jobs.grid(True, which="both", alpha=0.3)
    by_jobs.legend(fontsize=7, ncol=2)

    for (policy, jobs), points in sorted(series(runs, "racks", "jobs").items()):
        if len(points) < 2:
            continue
        xs, ys = zip(*points)
        by_racks.plot(xs, ys, marker="o", color=color(policy), alpha=0.4 + 0.6 * (jobs == top),
                      label=f"{policy}, {jobs // 1000}k jobs")
    by_racks.set(xscale="log", yscale="log", xlabel="racks (72 GPUs each)", ylabel="wall time per policy (s)",
                 title="Cost against machine size")
    by_racks.set_xticks(sorted({r["racks"] for r in runs}))
    by_racks.xaxis.set_major_formatter(ScalarFormatter())
    by_racks.xaxis.set_minor_formatter(NullFormatter())
    by_racks.grid(True, which="both", alpha=0.3)
    by_racks.legend(fontsize=7, ncol=2)

    fig.suptitle(f"nvlsim-bench on {cores} cores: wall time of one policy's replay")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv)
