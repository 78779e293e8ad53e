#!/usr/bin/env python3
"""How Slurm 22.05 (select/cons_tres) places gres/shard and gres/mps requests on trays of 4 GPUs: scripted
experiments on a private Slurm (slurm_cluster.py), each asserting the placement docs/sharing.md states.

Each scenario starts from an idle cluster of a few trays (4 GPUs, 144 CPUs each) configured with shards or
MPS, then submits jobs in order (`salloc --no-shell --immediate=2 ARGS`) and cancels some; after each
submission the job's allocation is read from `scontrol show job -d` and compared with the expected one:

    tray-0 shard:1@0                 1 shard of GPU 0 of tray-0
    tray-0 gpu:3@1-3 + tray-1 gpu:1@0  whole GPUs on two trays
    pending                          refused now, Slurm would start it later
    never                            refused for good ("Requested node configuration is not available")

    tests/slurm_oracle/sharing_probe.py [--scenario NAME ...] [--verbose] [--keep]

Prints one line per submission (with --verbose, also those that match) and `scenarios=N steps=S
differences=D` last. Exit status: 0 when every placement was the expected one, 1 when one was not, 2 on a
Slurm failure, 77 when Slurm is not installed (1 when CI=true, where it must be).
"""

import argparse
import os
import sys
import time
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from slurm_cluster import (ClusterSpec, SlurmCluster, SlurmMissing, compress_ids,  # noqa: E402
                           missing_programs)

EXIT_FAIL = 1
EXIT_SETUP = 2
EXIT_SKIP = 77


@dataclass
class Scenario:
    name: str
    what: str                 # the question it answers
    spec: dict                # ClusterSpec arguments beyond the defaults below
    # (label, salloc arguments, expected placement) or (label, "cancel", None): cancels the job of that label
    steps: list = field(default_factory=list)


def spec_of(scenario):
    args = dict(trays=3, gpus_per_tray=4, sockets=2, cores_per_socket=72)
    args.update(scenario.spec)
    return ClusterSpec(**args)


SHARD = dict(sharing="shard")           # 4 shards per GPU, 16 per tray
MPS = dict(sharing="mps")               # 100 mps per GPU, 400 per tray

# Each scenario's comment is the rule of docs/sharing.md it checks. The trays are idle at its start; CPUs
# matter because a tray is chosen by its free CPUs (each job below takes 1 CPU unless it asks -c or
# --cpus-per-gpu).
SCENARIOS = [
    # Within a tray, a shard job takes all its shards from one GPU: the lowest-numbered GPU with enough
    # free shards (first fit). Jobs pile onto tray-0, the tray with the fewest free CPUs.
    Scenario("shard_first_fit", "which GPU of a tray a shard job gets", SHARD, [
        ("a", "--gres=shard:1", "tray-0 shard:1@0"),
        ("b", "--gres=shard:2", "tray-0 shard:2@0"),
        ("c", "--gres=shard:3", "tray-0 shard:3@1"),
        ("d", "--gres=shard:1", "tray-0 shard:1@0"),
        ("e", "--gres=shard:4", "tray-0 shard:4@2"),
        ("f", "--gres=shard:2", "tray-0 shard:2@3"),
    ]),
    # First fit, not best fit: c goes to GPU 0 (2 free) rather than GPU 1 (1 free); and an empty GPU 0 is
    # taken before a partly used GPU 1 (g).
    Scenario("shard_gpu_choice", "first fit or best fit among a tray's GPUs; empty or partly used", SHARD, [
        ("a", "--gres=shard:2", "tray-0 shard:2@0"),
        ("b", "--gres=shard:3", "tray-0 shard:3@1"),
        ("c", "--gres=shard:1", "tray-0 shard:1@0"),
        ("d", "--gres=shard:2", "tray-0 shard:2@2"),
        ("e", "-w tray-1 --gres=shard:4", "tray-1 shard:4@0"),
        ("f", "-w tray-1 --gres=shard:1", "tray-1 shard:1@1"),
        ("e", "cancel", None),
        ("g", "-w tray-1 --gres=shard:1", "tray-1 shard:1@0"),
    ]),
    # The tray is the one with the fewest free CPUs that can serve (best fit on CPUs), not one with a
    # partly used GPU: c goes to tray-0 (140 free CPUs, idle GPU 1), not tray-1 (143, GPU 0 half used).
    Scenario("shard_no_packing", "does a shard job seek a tray with a partly used GPU", SHARD, [
        ("a", "-w tray-1 --gres=shard:2", "tray-1 shard:2@0"),
        ("b", "-w tray-0 -c 4 --gpus=1", "tray-0 gpu:1@0"),
        ("c", "--gres=shard:1", "tray-0 shard:1@1"),
        ("d", "-w tray-2 -c 3 --gres=shard:1", "tray-2 shard:1@0"),
        ("e", "--gres=shard:1", "tray-0 shard:1@1"),
    ]),
    # The runs, not the trays, are compared: tray-2 cannot serve (all GPUs held whole), so the runs are
    # tray-[0-1] (120 + 144 free CPUs) and tray-3 (140); the run with fewer free CPUs that holds the job
    # wins, so d goes to tray-3 although tray-0 alone has fewer free CPUs.
    Scenario("shard_runs", "trays compared one by one, or runs of consecutive trays", dict(SHARD, trays=4), [
        ("a", "-w tray-0 -c 24 --gres=shard:1", "tray-0 shard:1@0"),
        ("b", "-w tray-2 --gpus=4", "tray-2 gpu:4@0-3"),
        ("c", "-w tray-3 -c 4 --gres=shard:1", "tray-3 shard:1@0"),
        ("d", "--gres=shard:1", "tray-3 shard:1@0"),
    ]),
    # Equal free CPUs: the lowest-numbered tray (c: tray-1 before tray-2; tray-0 has more free CPUs).
    Scenario("shard_ties", "equal free CPUs", SHARD, [
        ("a", "-w tray-2 --gres=shard:1", "tray-2 shard:1@0"),
        ("b", "-w tray-1 --gres=shard:1", "tray-1 shard:1@0"),
        ("c", "--gres=shard:4", "tray-1 shard:4@1"),
        ("d", "--gres=shard:1", "tray-1 shard:1@0"),
    ]),
    # A shard job never spans GPUs: more than a GPU's shards (5, 16) is accepted but stays pending even on
    # an idle cluster; with 1 shard free on each of the 12 GPUs, 2 shards are pending.
    Scenario("shard_span", "can a shard job take shards of two GPUs", SHARD, [
        ("big", "--gres=shard:5", "pending"),
        ("all", "--gres=shard:16", "pending"),
    ] + [(f"s{i}", "--gres=shard:3", f"tray-{i // 4} shard:3@{i % 4}") for i in range(12)] + [
        ("two", "--gres=shard:2", "pending"),
        ("one", "--gres=shard:1", "tray-0 shard:1@0"),
    ]),
    # Tray by free CPUs, GPU by first fit, whole GPUs skipped: f goes to tray-1 (123 free CPUs) GPU 1.
    Scenario("shard_node_choice", "which tray a shard job goes to", SHARD, [
        ("a", "--gpus=1 --cpus-per-gpu=10", "tray-0 gpu:1@0"),
        ("b", "-w tray-1 --gres=shard:3", "tray-1 shard:3@0"),
        ("c", "--gres=shard:2", "tray-0 shard:2@1"),
        ("d", "--gres=shard:1", "tray-0 shard:1@1"),
        ("e", "-w tray-1 -c 20 --gres=shard:1", "tray-1 shard:1@0"),
        ("f", "--gres=shard:2", "tray-1 shard:2@1"),
    ]),
    # A GPU holding shards is not free for whole-GPU jobs (b leaves tray-0, c gets its GPUs 1-3), a GPU
    # held whole gets no shards (e leaves tray-0), and a GPU whose shards are all released is whole again.
    Scenario("shard_vs_gpu", "whole GPUs and shards on the same GPU", SHARD, [
        ("a", "--gres=shard:1", "tray-0 shard:1@0"),
        ("b", "--gpus=4", "tray-1 gpu:4@0-3"),
        ("c", "--gpus=3", "tray-0 gpu:3@1-3"),
        ("d", "--gres=shard:1", "tray-0 shard:1@0"),
        ("e", "--gres=shard:4", "tray-2 shard:4@0"),
        ("a", "cancel", None),
        ("d", "cancel", None),
        ("g", "--gpus=1", "tray-0 gpu:1@0"),
        ("h", "--gpus=2", "tray-2 gpu:2@1-2"),
    ]),
    # Slurm 22.05 defect (found by the oracle, `run --sharing shard`): a GPU is whole again as soon as ANY
    # of its shard jobs ends, not its last. After b ends, a still holds 2 shards of GPU 0, yet c takes GPU 0
    # whole; the shard count stays right (d avoids GPU 0, held whole; after c ends, e gets a's GPU 0).
    Scenario("shard_release", "is a GPU whole again when one of its shard jobs ends", SHARD, [
        ("a", "-w tray-0 --gres=shard:2", "tray-0 shard:2@0"),
        ("b", "-w tray-0 --gres=shard:1", "tray-0 shard:1@0"),
        ("b", "cancel", None),
        ("c", "-w tray-0 --gpus=2", "tray-0 gpu:2@0-1"),
        ("d", "-w tray-0 --gres=shard:1", "tray-0 shard:1@2"),
        ("c", "cancel", None),
        ("e", "-w tray-0 --gres=shard:2", "tray-0 shard:2@0"),
        ("f", "-w tray-0 --gres=shard:1", "tray-0 shard:1@1"),
        ("g", "-w tray-0 --gpus=1", "tray-0 gpu:1@3"),
    ]),
    # --gres=shard:K is per tray (-N 2: K on each); a whole-GPU job counts a GPU with shards as used.
    Scenario("shard_multi", "shards per tray on several trays; whole-GPU jobs beside shards", SHARD, [
        ("a", "-N 2 --gres=shard:2", "tray-0 shard:2@0 + tray-1 shard:2@0"),
        ("b", "--gpus=7", "tray-0 gpu:3@1-3 + tray-2 gpu:4@0-3"),
        ("c", "-N 1 --gpus-per-node=4", "pending"),
        ("d", "--gpus=2", "tray-1 gpu:2@1-2"),
    ]),
    # -N 2 on busy trays: not the two with the fewest free CPUs but, as for whole-tray jobs, the trays
    # that can serve in index order within a run of consecutive ones (c: tray-0 and tray-1, not tray-2 with
    # fewer free CPUs than tray-1); with tray-1 unable to serve (g), the runs tray-0 and tray-2, the one
    # with more free CPUs first. Each tray's GPU by first fit.
    Scenario("shard_multi_busy", "which trays a multi-tray shard job gets", SHARD, [
        ("a", "-w tray-0 -c 10 --gres=shard:1", "tray-0 shard:1@0"),
        ("b", "-w tray-2 -c 5 --gres=shard:1", "tray-2 shard:1@0"),
        ("c", "-N 2 --gres=shard:4", "tray-0 shard:4@1 + tray-1 shard:4@0"),
        ("d", "-N 2 --gres=shard:2", "tray-0 shard:2@0 + tray-1 shard:2@1"),
        ("e", "-w tray-1 -c 20 --gres=shard:4", "tray-1 shard:4@2"),
        ("f", "-N 2 --gres=shard:4", "tray-0 shard:4@2 + tray-1 shard:4@3"),
        ("g", "-N 2 --gres=shard:4", "tray-0 shard:4@3 + tray-2 shard:4@1"),
    ]),
    # Configuration pitfall: with untyped GPUs in gres.conf (no Type=, no Cores=), Slurm keeps no per-GPU
    # records of gres/gpu, and whole-GPU jobs take GPUs that hold shards (b); shards still avoid GPUs held
    # whole (d, e). slurm_cluster.py therefore types the GPUs whenever sharing is on.
    Scenario("shard_untyped", "the same with untyped GPUs in gres.conf", dict(SHARD, gpu_type=""), [
        ("a", "--gres=shard:1", "tray-0 shard:1@0"),
        ("b", "--gpus=1", "tray-0 gpu:1@0"),
        ("c", "--gpus=4", "tray-1 gpu:4@0-3"),
        ("d", "--gres=shard:3", "tray-0 shard:3@1"),
        ("e", "-w tray-1 --gres=shard:1", "pending"),
    ]),
    # MPS (default one_sharing): a job's share is on one GPU; while a tray has MPS jobs, all its MPS jobs
    # use that one GPU (c, e do not take tray-0's idle GPUs); more than a GPU's count (150, 101) stays
    # pending for good.
    Scenario("mps_one_gpu", "which GPU an MPS job gets, and how much", MPS, [
        ("a", "--gres=mps:50", "tray-0 mps:50@0"),
        ("b", "--gres=mps:30", "tray-0 mps:30@0"),
        ("c", "--gres=mps:40", "tray-1 mps:40@0"),
        ("d", "--gres=mps:20", "tray-0 mps:20@0"),
        ("e", "--gres=mps:100", "tray-2 mps:100@0"),
        ("f", "--gres=mps:150", "pending"),
        ("g", "--gres=mps:101", "pending"),
        ("h", "--gres=mps:10", "tray-1 mps:10@0"),
    ]),
    # MPS and whole GPUs exclude each other per GPU, as shards do; MPS takes the first GPU not held whole.
    Scenario("mps_vs_gpu", "whole GPUs and MPS on the same GPU", MPS, [
        ("a", "--gpus=2", "tray-0 gpu:2@0-1"),
        ("b", "--gres=mps:50", "tray-0 mps:50@2"),
        ("c", "--gpus=2", "tray-1 gpu:2@0-1"),
        ("d", "--gpus=1", "tray-0 gpu:1@3"),
        ("e", "--gres=mps:60", "tray-1 mps:60@2"),
        ("f", "-N 2 --gres=mps:50", "tray-0 mps:50@2 + tray-2 mps:50@0"),
    ]),
    # A tray's MPS GPU stays the one in use until its last MPS job ends (c pending although GPU 0 is
    # idle); then the next MPS job takes the first free GPU again (f).
    Scenario("mps_busy_gpu", "how long a tray's MPS stays on one GPU", MPS, [
        ("a", "-w tray-0 --gpus=1", "tray-0 gpu:1@0"),
        ("b", "-w tray-0 --gres=mps:50", "tray-0 mps:50@1"),
        ("a", "cancel", None),
        ("c", "-w tray-0 --gres=mps:60", "pending"),
        ("d", "-w tray-0 --gres=mps:40", "tray-0 mps:40@1"),
        ("b", "cancel", None),
        ("d", "cancel", None),
        ("f", "-w tray-0 --gres=mps:60", "tray-0 mps:60@0"),
        ("g", "-w tray-0 --gpus=1", "tray-0 gpu:1@1"),
    ]),
    # The release defect of shard_release holds for MPS too: after b ends, a still holds mps:40 of GPU 0,
    # yet c takes GPU 0 whole; d then waits, the tray's MPS being on GPU 0 (one_sharing), now held whole.
    Scenario("mps_release", "is a GPU whole again when one of its MPS jobs ends", MPS, [
        ("a", "-w tray-0 --gres=mps:40", "tray-0 mps:40@0"),
        ("b", "-w tray-0 --gres=mps:20", "tray-0 mps:20@0"),
        ("b", "cancel", None),
        ("c", "-w tray-0 --gpus=2", "tray-0 gpu:2@0-1"),
        ("d", "-w tray-0 --gres=mps:10", "pending"),
    ]),
    # With Flags=all_sharing, MPS jobs of one tray may use different GPUs (b), first fit like shards.
    Scenario("mps_all_sharing", "MPS with Flags=all_sharing", dict(MPS, sharing_flags="all_sharing"), [
        ("a", "--gres=mps:50", "tray-0 mps:50@0"),
        ("b", "--gres=mps:60", "tray-0 mps:60@1"),
        ("c", "--gres=mps:50", "tray-0 mps:50@0"),
        ("d", "--gres=mps:150", "pending"),
    ]),
]


def placement_text(held):
    """{tray: {name: (count, indices)}} -> 'tray-0 shard:2@0 + tray-1 gpu:4@0-3' (trays in order)."""
    parts = []
    for tray in sorted(held):
        for name, (count, idx) in sorted(held[tray].items()):
            parts.append(f"tray-{tray} {name}:{count}@{compress_ids(sorted(idx)) if idx else '-'}")
    return " + ".join(parts) or "(nothing)"


def run_scenario(cluster, sc, verbose):
    """Runs one scenario on an idle cluster; returns (steps, differences). Leaves the cluster idle."""
    jobs = {}
    steps = diffs = 0
    try:
        for label, args, expected in sc.steps:
            if args == "cancel":
                cluster.cancel(jobs.pop(label))
                if verbose:
                    print(f"  {label}: cancelled")
                continue
            job = cluster.allocate(["--immediate=2", "-t", "60"] + args.split())
            if job:
                jobs[label] = job
                got = placement_text(cluster.job_gres(job))
            elif cluster.refusal == "pending":
                got = "pending"
            else:
                got = "never"
            steps += 1
            ok = expected is None or got == expected
            diffs += not ok
            if not ok:
                print(f"  DIFFERENCE {sc.name} {label} ({args}): slurm: {got}; expected: {expected}")
            elif verbose:
                print(f"  {label} ({args}): {got}" + ("" if expected else "  [not checked]"))
    finally:
        for job in jobs.values():
            cluster.cancel(job)
    return steps, diffs


def skip_without_slurm():
    missing = missing_programs()
    if not missing:
        return None
    why = "Slurm is not installed (missing " + ", ".join(missing) + ")"
    if os.environ.get("CI") == "true":
        print(f"sharing-probe: {why}; CI=true requires it", file=sys.stderr)
        return EXIT_FAIL
    print(f"sharing-probe: skipped: {why}", file=sys.stderr)
    return EXIT_SKIP


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenario", action="append", metavar="NAME", help="run only these (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the scenarios and exit")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the Slurm folders and print their paths")
    args = ap.parse_args()
    chosen = [s for s in SCENARIOS if not args.scenario or s.name in args.scenario]
    if args.list:
        for s in SCENARIOS:
            print(f"{s.name}: {s.what}")
        return 0
    if args.scenario and len(chosen) != len(set(args.scenario)):
        ap.error(f"unknown scenario; known: {', '.join(s.name for s in SCENARIOS)}")
    status = skip_without_slurm()
    if status is not None:
        return status

    start = time.monotonic()
    total_steps = total_diffs = 0
    # Scenarios with the same configuration share one cluster, idle again between them.
    groups = {}
    for sc in chosen:
        groups.setdefault(repr(sorted(sc.spec.items())), []).append(sc)
    try:
        for scs in groups.values():
            with SlurmCluster(spec_of(scs[0]), keep_dir=args.keep) as cluster:
                if args.keep:
                    print(f"sharing-probe: Slurm folder (kept): {cluster.dir}", file=sys.stderr)
                for sc in scs:
                    if args.verbose:
                        print(f"{sc.name}: {sc.what}")
                    steps, diffs = run_scenario(cluster, sc, args.verbose)
                    total_steps += steps
                    total_diffs += diffs
    except (SlurmMissing, RuntimeError) as e:
        print(f"sharing-probe: {e}", file=sys.stderr)
        return EXIT_SETUP
    print(f"scenarios={len(chosen)} steps={total_steps} differences={total_diffs}")
    print(f"sharing-probe: {time.monotonic() - start:.1f} s", file=sys.stderr)
    return EXIT_FAIL if total_diffs else 0


if __name__ == "__main__":
    sys.exit(main())
