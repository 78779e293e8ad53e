#!/usr/bin/env python3
"""NVIDIA's block-scheduling examples asked of the real Slurm 24.11 and of nvlsim (tests/data/block_examples.json).

Each scenario runs on one private Slurm 24.11 (slurm_cluster.py; 18 trays of 4 GPUs and 144 cores per rack,
topology/block on the blocks nvlsim writes) and one closed-loop nvlsim placer per scenario (the policy's
own state, as a replay keeps it). A step submits a job with the salloc options nvlsim says the policy stands
for, ends one, or takes trays out of service or back; every answer of Slurm and of nvlsim is compared with
the scenario's recorded `expect`. Between scenarios every job ends and every tray comes back.

    tests/slurm_oracle/block_examples.py [--examples FILE] [--record OUT.json] [--placer PATH]

--record writes the file again with Slurm's answers as the expectations (nvlsim is still compared with
them), for a reviewer to read before committing it. Scenarios marked nvlsim_only (rules Slurm has no
counterpart for) are asked of nvlsim alone.

Exit status: 0 when every answer matches, 1 when one does not, 2 on setup errors, 77 when Slurm 24.11 cannot
run here (1 when CI=true).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from placer_client import PLACER_TIMEOUT, Fatal, Placer  # noqa: E402
from slurm_cluster import ClusterSpec, SlurmCluster, SlurmMissing, why_unavailable  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
EXAMPLES = os.path.join(REPO, "tests", "data", "block_examples.json")
TRAYS_PER_RACK = 18


def placer_path(arg):
    path = arg or os.environ.get("NVLSIM_ORACLE_PLACE") or os.path.join(
        REPO, "build-test", "tests", "slurm_oracle", "nvlsim-oracle-place")
    if not os.access(path, os.X_OK):
        raise Fatal(f"no placer at {path}: build nvlsim-oracle-place, or pass --placer or NVLSIM_ORACLE_PLACE")
    return path


def as_expect(alloc, cpus=None):
    """[[tray, [GPU indices], cores], ...] ascending, from Slurm's {tray: (GPUs, cores)} or the placer's
    set of (tray, GPU, shares) and {tray: cores}."""
    if isinstance(alloc, dict):
        return [[t, sorted(g), c] for t, (g, c) in sorted(alloc.items())]
    per_tray = {}
    for tray, gpu, _ in alloc:
        per_tray.setdefault(tray, []).append(gpu)
    return [[t, sorted(g), cpus.get(t, 0)] for t, g in sorted(per_tray.items())]


class Scenario:
    def __init__(self, spec, cluster, placer, verbose):
        self.spec = spec
        self.cluster = cluster
        self.placer = placer
        self.verbose = verbose
        self.slurm_jobs = {}   # name -> Slurm job id
        self.nvlsim_jobs = {}  # name -> placer key
        self.down = set()
        self.failures = []
        self.next_key = 0

    def run(self, record):
        for i, step in enumerate(self.spec["steps"]):
            where = f"{self.spec['name']}, step {i + 1}"
            if "submit" in step:
                self.submit(step, where, record)
            elif "end" in step:
                name = step["end"]
                if self.cluster and name in self.slurm_jobs:
                    self.cluster.cancel(self.slurm_jobs.pop(name))
                if name in self.nvlsim_jobs:
                    self.placer.tell({"end": self.nvlsim_jobs.pop(name)})
            else:
                going = "down" in step
                trays = step["down" if going else "up"]
                for tray in trays:
                    if self.cluster:
                        self.cluster.set_node_state(tray, "drain" if going else "resume")
                    (self.down.add if going else self.down.discard)(tray)
                self.placer.tell({"down" if going else "up": trays})

    def submit(self, step, where, record):
        name = step["submit"]
        key = self.next_key
        self.next_key += 1
        request = {"gpus": step["gpus"], "shape": step["shape"], "cpus_per_gpu": step.get("cpus_per_gpu", 0)}
        nvlsim = self.placer.decide({"submit": key, "request": request})
        if nvlsim.alloc is not None:
            self.nvlsim_jobs[name] = key
        nvlsim_answer = as_expect(nvlsim.alloc, nvlsim.cpus) if nvlsim.alloc is not None else None
        nvlsim_refusal = None if nvlsim.alloc is not None else ("never" if nvlsim.never else "later")
        what = f"{name}: {' '.join(nvlsim.salloc)}"
        if self.cluster:
            job = self.cluster.allocate(["--immediate=2"] + nvlsim.salloc + ["-t", "60"])
            if job:
                self.slurm_jobs[name] = job
                slurm_answer, slurm_refusal = as_expect(self.cluster.job_allocation(job)), None
            else:
                slurm_answer = None
                slurm_refusal = "later" if self.cluster.refusal == "pending" else "never"
            if record:
                step["expect"] = slurm_answer
                if slurm_refusal:
                    step["refused"] = slurm_refusal
                else:
                    step.pop("refused", None)
            self.check(f"{where} ({what}): Slurm", (slurm_answer, slurm_refusal), step)
        self.check(f"{where} ({what}): nvlsim", (nvlsim_answer, nvlsim_refusal), step)

    def check(self, who, answer, step):
        expected = (step.get("expect"), step.get("refused") if step.get("expect") is None else None)
        if answer != expected:
            self.failures.append(f"{who} gave {answer}, expected {expected}")
            print(f"DIFFERENT {who}:\n  got:      {answer}\n  expected: {expected}")
        elif self.verbose:
            print(f"same {who}: {answer}")

    def reset(self):
        for job in self.slurm_jobs.values():
            self.cluster.cancel(job)
        for tray in sorted(self.down):
            self.cluster.set_node_state(tray, "resume")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", default=EXAMPLES)
    ap.add_argument("--record", metavar="OUT.json")
    ap.add_argument("--placer")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    why = why_unavailable("24.11")
    if why:
        print(f"block-examples: {'' if os.environ.get('CI') == 'true' else 'skipped: '}{why}", file=sys.stderr)
        return 1 if os.environ.get("CI") == "true" else 77
    with open(args.examples) as f:
        examples = json.load(f)
    racks = examples["racks"]
    failures = []
    try:
        placer = placer_path(args.placer)
        with tempfile.TemporaryDirectory(prefix="nvlsim-examples-") as tmp:
            topology = os.path.join(tmp, "topology.conf")
            subprocess.run([placer, "--racks", str(racks), "--write-block-topology", topology], check=True,
                           timeout=PLACER_TIMEOUT)
            with open(topology) as f:
                spec = ClusterSpec(trays=racks * TRAYS_PER_RACK, topology_conf=f.read(), slurm="24.11",
                                   return_to_service=0)
            with SlurmCluster(spec) as cluster:
                for scenario in examples["scenarios"]:
                    argv = [placer, "--policy", scenario["policy"], "--racks", str(racks), "--topology", topology,
                            "--closed-loop"]
                    with Placer(argv) as client:
                        run = Scenario(scenario, None if scenario.get("nvlsim_only") else cluster, client,
                                       args.verbose)
                        run.run(args.record is not None)
                        if not scenario.get("nvlsim_only"):
                            run.reset()
                        failures += run.failures
    except (Fatal, SlurmMissing, RuntimeError, subprocess.SubprocessError, OSError) as e:
        print(f"block-examples: error: {e}", file=sys.stderr)
        return 2
    if args.record:
        with open(args.record, "w") as f:
            json.dump(examples, f, indent=1)
            f.write("\n")
    steps = sum("submit" in s for sc in examples["scenarios"] for s in sc["steps"])
    print(f"block-examples: {len(examples['scenarios'])} scenarios, {steps} submissions, "
          f"{len(failures)} answers differ", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
