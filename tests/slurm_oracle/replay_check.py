"""The closed loop through nvlsim's own replay: the jobs the real Slurm started, at the times the oracle
started and ended them, written as an SWF trace (and the trays it took out of service as a failure
replay), replayed by `nvlsim run` under the same policy, and every job's GPUs in jobs.csv compared with
Slurm's. This is the path users run: trace, request shaping, queue, policy, state keeping, outputs.

Each operation of the oracle is 10 s of simulated time: a job submitted at operation s and ended at e runs
10 (e - s) s (jobs still running at the end run past the last operation); a tray taken out of service at
operation f is down from 10 f + 5 s, after the jobs the oracle ended on it, until its repair. Jobs
communicate nothing (--comm-fraction 0), so each runs exactly its trace run time, as it held its
allocation in Slurm; a job nvlsim could not start at its submission would show a later start.
"""

import csv
import os
import subprocess

STEP = 10  # simulated seconds per oracle operation


class ReplayCheck:
    def __init__(self, nvlsim, args, racks, topology_path):
        self.nvlsim = nvlsim
        self.args = args
        self.racks = racks
        self.topology_path = topology_path
        self.jobs = []      # [key, submit op, end op or None, request, slurm {tray: (GPUs, CPUs)}]
        self.by_key = {}
        self.outages = []   # [tray, down op, up op or None]
        self.last_op = 0

    @staticmethod
    def applies(args):
        """Why the replay cannot express this run, or None: per-job shapes and shares have no SWF form."""
        if args.shape == "mixed":
            return "--shape mixed draws a shape per job, which a trace replay cannot give"
        if args.sharing:
            return "share jobs are not replayed"
        return None

    def started(self, op, key, request, slurm):
        job = [key, op, None, request, slurm]
        self.jobs.append(job)
        self.by_key[key] = job
        self.last_op = op

    def ended(self, op, key):
        job = self.by_key.get(key)
        if job is not None and job[2] is None:
            job[2] = op
        self.last_op = op

    def tray_down(self, op, tray):
        self.outages.append([tray, op, None])
        self.last_op = op

    def tray_up(self, op, tray):
        for outage in self.outages:
            if outage[0] == tray and outage[2] is None:
                outage[2] = op
        self.last_op = op

    def run(self, workdir):
        """Replays the jobs through `nvlsim run`; returns (jobs compared, list of differences)."""
        if not self.jobs:
            return 0, []
        first = self.jobs[0][1]
        horizon = self.last_op + 1
        swf = os.path.join(workdir, "slurm-started.swf")
        with open(swf, "w") as f:
            f.write("; Jobs the real Slurm started in tests/slurm_oracle, as replayed by replay_check.py\n")
            for number, (_, submit, end, request, _) in enumerate(self.jobs, 1):
                runtime = STEP * ((end if end is not None else horizon) - submit)
                gpus = request["gpus"]
                f.write(f"{number} {STEP * (submit - first)} -1 {runtime} {gpus} -1 -1 {gpus} {runtime + 3600} "
                        "-1 1 1 1 1 1 -1 -1 -1\n")
        argv = [self.nvlsim, "--quiet", "--trace", swf, "--policy", self.args.policy, "--platform",
                f"nvl72x{self.racks}", "--request-shape", self.args.shape, "--cpus-per-gpu",
                str(self.args.cpus_per_gpu), "--comm-fraction", "0", "--slurm-version", self.args.slurm,
                "--out", os.path.join(workdir, "replay")]
        if self.topology_path:
            argv += ["--topology", self.topology_path]
        if self.outages:
            failures = os.path.join(workdir, "outages.csv")
            with open(failures, "w") as f:
                f.write("time,component,id,duration\n")
                for tray, down, up in self.outages:
                    start = STEP * (down - first) + STEP // 2
                    end = STEP * ((up if up is not None else horizon) - first) + STEP // 2
                    f.write(f"{start},tray,{tray},{end - start}\n")
            argv += ["--failures", failures]
        res = subprocess.run(argv, capture_output=True, text=True, timeout=600)
        if res.returncode != 0:
            return 0, [f"nvlsim run failed ({res.returncode}): {res.stderr.strip()[-2000:]}"]
        return self.compare(os.path.join(workdir, "replay", "jobs.csv"))

    def compare(self, jobs_csv):
        differences = []
        with open(jobs_csv) as f:
            rows = {int(r["job_id"]): r for r in csv.DictReader(f)}
        for number, (key, _, _, request, slurm) in enumerate(self.jobs, 1):
            row = rows.get(number)
            want = {tray * 4 + g for tray, (gpus, _) in slurm.items() for g in gpus}
            if row is None:
                differences.append(f"submission {key}: no row in jobs.csv")
                continue
            got = set(expand(row["allocated_resources"]))
            late = float(row["waiting_time"] or 0) > 0
            if row["final_state"] == "REJECTED" or late or got != want:
                differences.append(f"submission {key} ({request}): Slurm GPUs {sorted(want)}; nvlsim run "
                                   f"{row['final_state']}, waited {row['waiting_time']} s, GPUs {sorted(got)}")
        return len(self.jobs), differences


def expand(text):
    """Batsim interval set '0-3 8-9' -> [0, 1, 2, 3, 8, 9]."""
    ids = []
    for part in text.split():
        first, _, last = part.partition("-")
        ids.extend(range(int(first), int(last or first) + 1))
    return ids
