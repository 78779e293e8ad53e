"""--reservations: when and where Slurm (sbatch --test-only) expects a job that cannot start now to start,
against nvlsim's reservation and Slurm's will-run batches applied to nvlsim's placements."""

import json
import re
import subprocess
import time

from placer_client import Fatal, describe, gpu_text, tray_list
from slurm_cluster import NEVER_STARTS, expand_hostlist

# The first batch of Slurm's will-run estimate, in seconds (see will_run_batches).
WILL_RUN_WINDOW = 30
# sbatch --test-only's answer (api/allocate.c), with SLURM_TIME_FORMAT=%s.
TEST_ONLY = re.compile(r"Job \d+ to start at (\d+) using \d+ processors on nodes (\S+) in partition")
# How a reservation compares (ReservationCheck.classify); only the first two pass.
RESERVATION_KINDS = ("same", "batching", "rule start, other trays", "other")


def usage_of(allocations):
    """{tray: (GPU indices in use, CPUs in use)} summed over job allocations; idle trays are absent."""
    used = {}
    for alloc in allocations:
        for tray, (gpus, cpus) in alloc.items():
            g, c = used.get(tray, ((), 0))
            used[tray] = (g + gpus, c + cpus)
    return used


def used_json(used):
    """The placer's "used": [[tray, [GPU, ...], CPUs], ...]."""
    return [[t, sorted(g), c] for t, (g, c) in sorted(used.items())]


def will_run_batches(ends):
    """Slurm's will-run estimate (cons_common/job_test.c, _will_run_test) removes the running jobs by
    expected end and tries the job after each batch of them. Over ENDS sorted ascending, this gives the
    number of jobs removed at each try. The first batch reaches WILL_RUN_WINDOW past the first end rounded
    up to a WILL_RUN_WINDOW boundary (a whole window up when it is on one); the window doubles after each
    batch, and again while no end falls in it; a batch always takes the job that opens it."""
    boundary = ends[0] + WILL_RUN_WINDOW - ends[0] % WILL_RUN_WINDOW
    window = WILL_RUN_WINDOW
    cuts = []
    i = 0
    while i < len(ends):
        i += 1
        while i < len(ends) and ends[i] <= boundary + window:
            i += 1
        cuts.append(i)
        window *= 2
        while i < len(ends) and ends[i] > boundary + window:
            window *= 2
    return cuts


class ReservationCheck:
    """--reservations: for a submission that neither Slurm nor nvlsim starts now, when and on which trays
    Slurm expects it to start (`sbatch --test-only`), against nvlsim's reservation for the same running jobs
    and expected ends, and against Slurm's batch rule applied to nvlsim's placements (the `rule` answer)."""

    def __init__(self, cluster, placer, verbose):
        self.cluster = cluster
        self.placer = placer
        self.verbose = verbose
        # Times in epoch seconds (parse_time.c, slurm_make_time_str honours SLURM_TIME_FORMAT), so that the
        # running jobs' ends and the test-only start are read on the same clock, free of time zones.
        self.env = dict(cluster.env, SLURM_TIME_FORMAT="%s")
        self.count = self.same_start = self.same_nodes = 0
        self.kinds = {kind: 0 for kind in RESERVATION_KINDS}
        self.seconds = 0.0

    def check(self, title, jobs, salloc, request):
        """Compares the three answers for a submission refused now; JOBS: the running jobs' allocations."""
        t0 = time.monotonic()
        ends = self.slurm_ends(jobs)
        now = int(time.time())
        slurm = self.test_only(salloc)
        question = {"now": now, "running": [{"end": ends[j], "used": used_json(usage_of([jobs[j]]))}
                                            for j in jobs], "request": request, "reserve": True}
        nvlsim = self.placer.reserve(question)
        if nvlsim is not None:
            nvlsim = (nvlsim[0], {tray for tray, *_ in nvlsim[1]})
        order = sorted(jobs, key=ends.get)
        rule = self.batch_rule(jobs, order, [ends[j] for j in order], request)
        self.seconds += time.monotonic() - t0

        self.count += 1
        self.same_start += (slurm and slurm[0]) == (nvlsim and nvlsim[0])
        self.same_nodes += (slurm and slurm[1]) == (nvlsim and nvlsim[1])
        kind = self.classify(slurm, nvlsim, rule, [ends[j] for j in order])
        self.kinds[kind] += 1
        if kind != "same" or self.verbose:
            self.report(f"{title}: {kind}", now, jobs, ends, dict(slurm=slurm, nvlsim=nvlsim, rule=rule))
            if self.verbose:
                print(f"  placer question: {json.dumps(question, separators=(',', ':'))}")

    def slurm_ends(self, jobs):
        """{job: expected end} of the running jobs, from Slurm (start + time limit)."""
        out = self._slurm(["squeue", "-h", "-t", "running", "-o", "%i %e"]).stdout
        ends = {int(job): int(end) for job, end in (line.split() for line in out.splitlines() if line.strip())}
        if set(ends) != set(jobs):
            raise Fatal(f"Slurm runs jobs {sorted(ends)}, the oracle expected {sorted(jobs)}")
        return ends

    def test_only(self, salloc):
        """Slurm's expected (start, trays) of the job, or None when it never starts."""
        args = ["sbatch", "--test-only", "--wrap", "true"] + salloc
        res = self._slurm(args)
        found = TEST_ONLY.search(res.stderr)
        if res.returncode == 0 and found:
            return int(found.group(1)), {self.cluster.tray_of(n) for n in expand_hostlist(found.group(2))}
        if res.returncode != 0 and any(m in res.stderr for m in NEVER_STARTS):
            return None
        raise RuntimeError(f"{' '.join(args)} ({res.returncode}) answered: {res.stderr.strip()!r}")

    def batch_rule(self, jobs, order, ends, request):
        """The (start, trays) Slurm's batches give when the job is placed as nvlsim places it: nvlsim is
        asked after each batch, and the start is the end of the batch's last job."""
        for cut in will_run_batches(ends):
            alloc = self.placer.ask({"used": used_json(usage_of(jobs[j] for j in order[cut:])),
                                     "request": request})
            if alloc is not None:
                return ends[cut - 1], {t for t, *_ in alloc}
        return None

    @staticmethod
    def classify(slurm, nvlsim, rule, ends):
        """same: Slurm, nvlsim and the rule agree. batching: Slurm gives the rule's answer, and its start is
        the end of the batch that holds nvlsim's start (Slurm is later only because it tries the job per
        batch). rule start, other trays: the rule has Slurm's start but other trays. other: the rest."""
        if rule != slurm:
            return "rule start, other trays" if rule and slurm and rule[0] == slurm[0] else "other"
        if slurm == nvlsim:
            return "same"
        if slurm is None or nvlsim is None:
            return "other"
        batch_end = next((ends[c - 1] for c in will_run_batches(ends) if ends[c - 1] >= nvlsim[0]), None)
        return "batching" if batch_end == slurm[0] else "other"

    def failed(self):
        """Reservations Slurm's batch rule does not reproduce: they fail the run."""
        return self.count - self.kinds["same"] - self.kinds["batching"]

    @staticmethod
    def report(title, now, jobs, ends, answers):
        """The RESERVATION block: times from now, and the running jobs ending by the latest start."""
        last = max((a[0] for a in answers.values() if a), default=now)
        used = usage_of(jobs.values())
        print(f"RESERVATION {title}")
        print(f"  state:  {describe({t: f'{gpu_text(g)}/{c}' for t, (g, c) in used.items()})}")
        print("  ends:   " + (", ".join(f"job {j} now+{ends[j] - now}" for j in sorted(jobs, key=ends.get)
                                        if ends[j] <= last) or "-"))
        for name, answer in answers.items():
            when = "none" if answer is None else f"now+{answer[0] - now:g} s on {tray_list(sorted(answer[1]))}"
            print(f"  {name + ':':7} {when}")

    def summary(self):
        return (f"reservations={self.count} same_start={self.same_start} same_nodes={self.same_nodes}",
                ", ".join(f"{k} {v}" for k, v in self.kinds.items()) + f"; {self.seconds:.1f} s")

    def _slurm(self, args, timeout=60):
        try:
            return subprocess.run(self.cluster.command(args), env=self.env, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"{' '.join(args)} gave no answer in {timeout} s") from None
