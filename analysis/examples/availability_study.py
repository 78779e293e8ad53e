#!/usr/bin/env python3
"""How many GPUs one very large segmented job can get on nvl72x64 as trays become unavailable.

Model. The machine is 64 NVL72 racks of 18 nodes (compute trays) with 4 GPUs each, 4,608 GPUs. Every
node is unavailable (failed, drained, in repair) with probability LAMBDA, independently of all other
nodes, so a rack has A ~ Binomial(18, 1 - LAMBDA) available nodes. The job is placed in segments of S
nodes and a segment never spans racks (it must sit in one NVLink domain), so a rack contributes
floor(A / S) * S nodes and the job gets 4 * sum over racks of floor(A_r / S) * S GPUs. S = 18 is
whole-rack blocks, S = 1 is per-node placement (it gets every available GPU). Nothing else runs and the
job takes whatever is offered. Not modelled: correlated (whole-rack) failures, repair over time, other
jobs, GPU-level faults (a tray with a bad GPU is one unavailable node).

For each LAMBDA on a grid 0..5% and each S in {1, 9, 16, 18} the script computes
  - the exact expectation, summing over k = 0..18 available nodes per rack with binomial weights;
  - a seeded Monte Carlo (numpy default_rng(--seed), --trials machines) giving the mean, its standard
    error and the 5th percentile, so the spread around the expectation is visible.

    python3 analysis/examples/availability_study.py                # writes availability.csv and .png here
    python3 analysis/examples/availability_study.py --out DIR      # ... into DIR
    python3 analysis/examples/availability_study.py --check analysis/examples/availability.csv

--check recomputes the table, compares it byte for byte with the given CSV (or DIR/availability.csv)
and verifies properties that must hold (see check()); exit status 1 if anything fails. Needs Debian's
python3-numpy; python3-matplotlib only for the PNG.
"""

import argparse
import math
import pathlib
import sys

import numpy as np

RACKS = 64
NODES_PER_RACK = 18
GPUS_PER_NODE = 4
TOTAL_GPUS = RACKS * NODES_PER_RACK * GPUS_PER_NODE  # 4,608
SEGMENTS = (1, 9, 16, 18)  # 1 is the per-node reference
LAMBDAS = [i / 1000 for i in range(51)]  # 0, 0.1%, ..., 5%
P5 = 0.05

COLUMNS = ("lambda", "segment_nodes", "healthy_gpus", "expected_gpus", "expected_fraction_of_healthy",
           "expected_fraction_of_all", "mc_mean_gpus", "mc_se_gpus", "mc_p5_gpus")


def usable_nodes(available, s):
    """Nodes of a rack with `available` free nodes that segments of s nodes can use."""
    return available // s * s


def rack_moments(lam, s):
    """E and E[.^2] of one rack's usable nodes, summed over k = 0..18 available nodes with binomial weights.

    Pure Python in a fixed order so the result does not depend on numpy's summation."""
    up, mean, square = 1.0 - lam, 0.0, 0.0
    for k in range(NODES_PER_RACK + 1):
        weight = math.comb(NODES_PER_RACK, k) * up**k * lam ** (NODES_PER_RACK - k)
        mean += weight * usable_nodes(k, s)
        square += weight * usable_nodes(k, s) ** 2
    return mean, square


def expected_gpus(lam, s):
    """Exact E[GPUs] for the whole machine: racks are identical and independent, so 64 x one rack."""
    return RACKS * GPUS_PER_NODE * rack_moments(lam, s)[0]


def exact_se(lam, s, trials):
    """Exact standard error of a Monte Carlo mean over `trials` machines (64 independent racks each)."""
    mean, square = rack_moments(lam, s)
    return math.sqrt(RACKS * GPUS_PER_NODE**2 * max(square - mean * mean, 0.0) / trials)


def monte_carlo(seed, trials):
    """{(lam, s): list of the job's GPUs in each trial}.

    One uniform draw per node and trial serves every LAMBDA (a node is down when its draw is below
    LAMBDA): common random numbers, so each simulated machine only loses nodes as LAMBDA grows and the
    curves are smooth. Uniform doubles are also the most stable part of numpy's generator streams."""
    draws = np.random.default_rng(seed).random((trials, RACKS, NODES_PER_RACK))
    result = {}
    for lam in LAMBDAS:
        available = (draws >= lam).sum(axis=2)  # trials x racks
        for s in SEGMENTS:
            gpus = GPUS_PER_NODE * usable_nodes(available, s).sum(axis=1)
            result[(lam, s)] = [int(g) for g in gpus]
    return result


def p5(values):
    """Empirical 5th percentile: the smallest x with at least 5% of trials at or below x (no interpolation,
    so it is always a GPU count some trial actually got)."""
    ordered = sorted(values)
    return ordered[max(math.ceil(P5 * len(ordered)) - 1, 0)]


def compute(seed, trials):
    """Rows of the study as dicts with full-precision values."""
    mc = monte_carlo(seed, trials)
    rows = []
    for lam in LAMBDAS:
        healthy = TOTAL_GPUS * (1.0 - lam)
        for s in SEGMENTS:
            gpus = mc[(lam, s)]
            n = len(gpus)
            total, squares = sum(gpus), sum(g * g for g in gpus)  # exact integers
            variance = (squares - total * total / n) / (n - 1)
            expected = expected_gpus(lam, s)
            rows.append({"lambda": lam, "segment_nodes": s, "healthy_gpus": healthy,
                         "expected_gpus": expected, "expected_fraction_of_healthy": expected / healthy,
                         "expected_fraction_of_all": expected / TOTAL_GPUS, "mc_mean_gpus": total / n,
                         "mc_se_gpus": math.sqrt(max(variance, 0.0) / n), "mc_p5_gpus": p5(gpus),
                         "mc": gpus})
    return rows


def to_csv(rows):
    """Fixed decimals: reruns are byte-identical and last-ulp noise never shows."""
    lines = [",".join(COLUMNS)]
    for r in rows:
        lines.append(f"{r['lambda']:.4f},{r['segment_nodes']},{r['healthy_gpus']:.2f},"
                     f"{r['expected_gpus']:.4f},{r['expected_fraction_of_healthy']:.6f},"
                     f"{r['expected_fraction_of_all']:.6f},{r['mc_mean_gpus']:.3f},{r['mc_se_gpus']:.4f},"
                     f"{r['mc_p5_gpus']}")
    return "\n".join(lines) + "\n"


def crossover(s_low, s_high):
    """LAMBDA at which segments of s_high start to get more GPUs than segments of s_low (first such grid
    interval, refined by bisection), or None if they never do on the grid."""
    def ahead(lam):
        return expected_gpus(lam, s_high) > expected_gpus(lam, s_low)
    i = next((i for i, lam in enumerate(LAMBDAS) if i > 0 and ahead(lam)), None)
    if i is None:
        return None
    lo, hi = LAMBDAS[i - 1], LAMBDAS[i]
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if ahead(mid) else (mid, hi)
    return hi


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 5), layout="constrained")
    ax = fig.add_subplot()
    pct = [100 * lam for lam in LAMBDAS]
    # s = 1 gets every available GPU, so its expectation is exactly the healthy bound: one line for both.
    ax.plot(pct, [TOTAL_GPUS * (1 - lam) for lam in LAMBDAS], "k--",
            label="healthy GPUs 4608·(1−λ) = per-node (s=1) expectation")
    for s, colour in zip((9, 16, 18), ("tab:blue", "tab:orange", "tab:red")):
        mine = [r for r in rows if r["segment_nodes"] == s]
        ax.plot(pct, [r["expected_gpus"] for r in mine], color=colour, label=f"segment {s}: expected")
        ax.plot(pct, [r["mc_p5_gpus"] for r in mine], color=colour, linestyle=":",
                label=f"segment {s}: 5th percentile (Monte Carlo)")
    ax.set_xlabel("per-node unavailability λ (%)")
    ax.set_ylabel("GPUs one job can get")
    ax.set_title("One job on nvl72x64 (64 racks × 18 nodes × 4 GPUs): GPUs obtainable by segment size")
    ax.set_xlim(0, 100 * LAMBDAS[-1])
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="lower left")
    fig.savefig(path, dpi=110, metadata={"Software": None})  # no version stamp: same bytes on rerun


def close(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1.0)


def check(rows, csv_path):
    """Failures (strings) of the checks; empty when all hold. Only facts that are guaranteed are asserted."""
    failures = []
    # 1. The committed table is what the script produces now.
    committed = csv_path.read_bytes() if csv_path.exists() else b""
    fresh = to_csv(rows).encode()
    if committed != fresh:
        old, new = committed.decode(errors="replace").splitlines(), fresh.decode().splitlines()
        old += ["<missing>"] * (len(new) - len(old))
        new += ["<missing>"] * (len(old) - len(new))
        i = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), len(old) - 1)
        failures.append(f"[csv] {csv_path} differs from a fresh computation at line {i + 1}: "
                        f"{old[i]!r} vs fresh {new[i]!r} (rerun the script without --check to update it)")
    at = {(r["lambda"], r["segment_nodes"]): r for r in rows}
    # 2. No failures: a rack offers floor(18/s)*s nodes, so 64*4*18 = 4608 GPUs for s = 1, 9, 18 but
    #    64*4*16 = 4096 for s = 16 (two nodes per rack can never form a segment). Written out by hand.
    for s, want in ((1, 4608), (9, 4608), (16, 4096), (18, 4608)):
        r = at[(0.0, s)]
        if r["expected_gpus"] != want or any(g != want for g in r["mc"]):
            failures.append(f"[lambda0] lambda=0, s={s}: expected {r['expected_gpus']}, "
                            f"MC {min(r['mc'])}..{max(r['mc'])}; want {want}")
    for r in rows:
        lam, s = r["lambda"], r["segment_nodes"]
        # 3. A segment only uses available nodes, so no s beats the healthy GPUs; s = 1 uses all of them.
        if r["expected_gpus"] > r["healthy_gpus"] * (1 + 1e-12):
            failures.append(f"[bound] lambda={lam}, s={s}: expected {r['expected_gpus']} "
                            f"> healthy {r['healthy_gpus']}")
        if s == 1 and not close(r["expected_gpus"], r["healthy_gpus"], 1e-9):
            failures.append(f"[bound] lambda={lam}, s=1: expected {r['expected_gpus']} "
                            f"!= healthy {r['healthy_gpus']}")
        # 4. Closed form and Monte Carlo agree within 5 standard errors. The sample SE alone is 0 when no
        #    trial hit a rare loss (s=16 at tiny lambda), so the larger of it and the exact SE is used.
        se = max(r["mc_se_gpus"], exact_se(lam, s, len(r["mc"])))
        gap = abs(r["expected_gpus"] - r["mc_mean_gpus"])
        if gap > 5 * se + 1e-9:
            failures.append(f"[mc] lambda={lam}, s={s}: closed form {r['expected_gpus']:.3f} vs MC mean "
                            f"{r['mc_mean_gpus']:.3f}, more than 5 standard errors ({se:.4f}) apart")
    for s in SEGMENTS:
        # 5. More unavailability never helps: usable nodes grow with available nodes, which shrink in λ.
        series = [at[(lam, s)]["expected_gpus"] for lam in LAMBDAS]
        if any(b > a + 1e-9 for a, b in zip(series, series[1:])):
            failures.append(f"[monotone] s={s}: expected GPUs increase somewhere as lambda grows")
    # 6. When s divides s', every s'-segment is whole s-segments, so s gets at least as much in every rack,
    #    hence in every trial, in the mean, the 5th percentile and the expectation. (9 vs 16 and 16 vs 18
    #    are not ordered per rack, so nothing is asserted about them.)
    for small, big in ((1, 9), (1, 16), (1, 18), (9, 18)):
        for lam in LAMBDAS:
            a, b = at[(lam, small)], at[(lam, big)]
            if (b["expected_gpus"] > a["expected_gpus"] + 1e-9 or any(y > x for x, y in zip(a["mc"], b["mc"]))
                    or b["mc_p5_gpus"] > a["mc_p5_gpus"]):
                failures.append(f"[divides] lambda={lam}: s={big} gets more than s={small}, which it divides")
    # 7. Hand computation at 5%: s=18 needs all 18 nodes up; s=16 needs at least 16 of them and uses 16.
    #    Literal numbers, so a wrong machine constant fails here too.
    hand = {18: 4608 * 0.95**18, 16: 4096 * (0.95**18 + 18 * 0.95**17 * 0.05 + 153 * 0.95**16 * 0.05**2)}
    for s, want in hand.items():
        if not close(at[(0.05, s)]["expected_gpus"], want, 1e-9):
            failures.append(f"[hand] lambda=0.05, s={s}: closed form {at[(0.05, s)]['expected_gpus']!r} "
                            f"vs hand {want!r}")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="Monte Carlo seed (default 1)")
    parser.add_argument("--trials", type=int, default=2000,
                        help="Monte Carlo machines per point (default 2000)")
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent),
                        help="where to write availability.csv and .png (default: next to this script)")
    parser.add_argument("--check", metavar="DIR_OR_CSV",
                        help="verify a committed table (CSV, or a directory holding availability.csv)")
    args = parser.parse_args()
    if args.trials < 2:
        parser.error("--trials must be at least 2")
    rows = compute(args.seed, args.trials)

    if args.check:
        path = pathlib.Path(args.check)
        failures = check(rows, path / "availability.csv" if path.is_dir() else path)
        for f in failures:
            print("FAIL:", f, file=sys.stderr)
        print(f"availability study: {len(failures)} failure(s)" if failures else
              "availability study: all checks pass")
        return 1 if failures else 0

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "availability.csv").write_text(to_csv(rows))
    plot(rows, out / "availability.png")
    at = {(r["lambda"], r["segment_nodes"]): r for r in rows}
    print("lambda  " + "".join(f"{'s=' + str(s):>22}" for s in SEGMENTS) + "   (expected GPUs / 5th pct)")
    for lam in (0.0, 0.01, 0.02, 0.05):
        print(f"{100 * lam:4.0f}%  " + "".join(
            f"{at[(lam, s)]['expected_gpus']:15.1f} / {at[(lam, s)]['mc_p5_gpus']:4d}" for s in SEGMENTS))
    for low, high in ((18, 16), (9, 16)):
        lam = crossover(low, high)
        print(f"segment {high} first beats segment {low} at lambda = "
              + (f"{100 * lam:.2f}%" if lam is not None else "never on this grid"))
    print(f"wrote {out / 'availability.csv'} and {out / 'availability.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
