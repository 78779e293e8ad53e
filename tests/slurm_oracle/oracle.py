"""The oracle's sequence: operations drawn from random.Random(SEED), each done on the real Slurm and asked of
nvlsim's placer, and every decision compared (see `run` for the command line and the output).

Two modes:
- per-decision: before each submission the placer is given Slurm's state (what every running job holds, the
  trays out of service), so each decision is compared on the same state and one difference cannot hide the
  next. This proves the decision rule.
- closed-loop: the placer keeps its own state from its own answers, as a replay does (it is told only that a
  job was submitted, ended, or that a tray went down or came back), and each of its decisions, refusals
  and CPU counts is compared with Slurm's. This proves nvlsim's state keeping as well: a difference in what
  a job holds shows up as a different decision later.
"""

import json
import random
import time

from placer_client import Fatal, describe, gpu_text
from reservation_check import ReservationCheck, usage_of, used_json

# Chance that an operation ends a running job rather than submitting one.
END_PROBABILITY = 0.35
# Share submissions (--sharing): trays and shares per tray, drawn uniformly from these. More than a GPU has
# (5 shards of 4, mps:101 of 100) is a job Slurm never starts (docs/sharing.md, rule 1 of each).
SHARE_TRAYS = (1, 1, 1, 1, 2, 3)
SHARE_COUNTS = {"shard": (1, 1, 2, 2, 3, 4, 5), "mps": (10, 20, 25, 30, 40, 50, 50, 60, 75, 100, 101)}
# With --failures P: a failure or repair happens at an operation with chance P; a repair when this share of
# the trays or more is out of service, otherwise a repair with chance REPAIR_SHARE when any tray is.
MAX_DOWN_SHARE = 0.15
REPAIR_SHARE = 0.5


class Job:
    """One submission both sides were asked about: what each holds while it runs (None: not running there)."""

    def __init__(self, key):
        self.key = key
        self.slurm_id = None
        self.slurm = None     # {tray: (GPU indices, CPUs)}
        self.shards = None    # {tray: (GPU index, shares)} of a shard or MPS job on Slurm
        self.nvlsim = None    # the placer's answer while the job runs in nvlsim's own state (closed loop)

    def running(self):
        return self.slurm is not None or self.nvlsim is not None


class Oracle:
    def __init__(self, args, cluster, placer, gpus_per_tray, trays, replay=None):
        self.args = args
        self.cluster = cluster
        self.placer = placer
        self.closed = args.mode == "closed-loop"
        self.rng = random.Random(args.seed)
        self.gpus_per_tray = gpus_per_tray
        self.trays = trays
        self.total_gpus = trays * gpus_per_tray
        self.jobs = {}    # key -> Job, in submission order; only running ones
        self.next_key = 0
        self.down = {}    # tray -> "down" or "drain", in the order they left service
        self.decisions = self.matched = self.refused = self.ends = 0
        self.failures = self.repairs = 0
        self.shard_decisions = self.shard_matched = 0
        self.first_mismatch = None
        self.busy_gpus = 0  # summed over decisions, for the mean load
        self.seconds = dict(placer=0.0, salloc=0.0, scontrol=0.0, scancel=0.0)
        self.reservations = ReservationCheck(cluster, placer, args.verbose) if args.reservations else None
        self.replay = replay  # a ReplayCheck told of Slurm's starts, ends and outages, or None

    # The sequence.

    def run(self):
        for op in range(1, self.args.operations + 1):
            # Outages begin after the first submission, where the trace a replay is given starts.
            if self.args.failures > 0 and self.rng.random() < self.args.failures and self.next_key > 0:
                self.fail_or_repair(op)
                continue
            if self.jobs and self.rng.random() < END_PROBABILITY:
                self.end(op)
                continue
            if self.args.share_jobs > 0 and self.rng.random() < self.args.share_jobs:
                trays, shares = self.rng.choice(SHARE_TRAYS), self.rng.choice(SHARE_COUNTS[self.args.sharing])
                self.decide(op, trays, "gpus", self.rng.randint(10, 2000), shares)
                continue
            gpus, shape, minutes = self.draw()
            if self.jobs and gpus > self.free_gpus():
                self.end(op)
            else:
                self.decide(op, gpus, shape, minutes)

    def draw(self):
        """One submission: (GPUs, shape, time limit in minutes), in the proportions of an AI mix."""
        r = self.rng.random()
        if r < 0.40:
            gpus = self.rng.choice((1, 1, 2, 2, 3, 4, 4))
        elif r < 0.70:
            gpus = 4 * self.rng.randint(2, 9)  # several trays
        elif r < 0.80:
            gpus = 4 * self.rng.randint(10, self.total_gpus // 4)  # up to several racks or the whole machine
        else:
            gpus = self.rng.choice([g for g in range(5, 71) if g % 4])
        gpus = min(gpus, self.total_gpus)
        shape = self.args.shape
        if shape == "nodes":
            gpus = -(-gpus // 4) * 4
        elif shape == "auto":
            shape = "nodes" if gpus % 4 == 0 else "gpus"
        elif shape == "mixed":
            shape = self.rng.choice(("gpus", "nodes")) if gpus % 4 == 0 else "gpus"
        return gpus, shape, self.rng.randint(10, 2000)

    def free_gpus(self):
        """GPUs no job holds on Slurm's trays in service."""
        used = sum(len(g) for t, (g, _) in self.usage().items() if t not in self.down)
        return self.total_gpus - used - self.gpus_per_tray * len(self.down)

    def usage(self):
        """{tray: (GPU indices in use, CPUs in use)} over Slurm's running jobs; idle trays are absent."""
        return usage_of(j.slurm for j in self.jobs.values() if j.slurm is not None)

    def shard_usage(self):
        """{tray: {GPU index: shares in use}} over Slurm's running shard or MPS jobs."""
        used = {}
        for job in self.jobs.values():
            for tray, (gpu, shards) in (job.shards or {}).items():
                on_tray = used.setdefault(tray, {})
                on_tray[gpu] = on_tray.get(gpu, 0) + shards
        return used

    # A submission.

    def decide(self, op, gpus, shape, minutes, shards=0):
        used = self.usage()
        k = 0 if shards else self.args.cpus_per_gpu
        request = {"gpus": gpus, "shape": shape, "cpus_per_gpu": k}
        if shards:
            request.update(shards=shards, gres=self.args.sharing)
        key = self.next_key
        self.next_key += 1
        if self.closed:
            question = {"submit": key, "request": request}
        else:
            entries = used_json(used)
            for entry in entries:
                on_tray = self.shard_usage().get(entry[0])
                if on_tray:
                    entry.append(sorted([gpu, n] for gpu, n in on_tray.items()))
            question = {"used": entries, "down": sorted(self.down), "request": request}

        t0 = time.monotonic()
        nvlsim = self.placer.decide(question)
        t1 = time.monotonic()
        salloc = nvlsim.salloc + ["-t", str(minutes)]
        slurm_id = self.cluster.allocate(["--immediate=2"] + salloc)
        t2 = time.monotonic()
        job = Job(key)
        if slurm_id:
            job.slurm_id = slurm_id
            job.slurm, job.shards = self.slurm_answer(slurm_id, shards)
            if self.replay:
                self.replay.started(op, key, request, job.slurm)
        t3 = time.monotonic()
        self.seconds["placer"] += t1 - t0
        self.seconds["salloc"] += t2 - t1
        self.seconds["scontrol"] += t3 - t2
        if self.closed and nvlsim.alloc is not None:
            job.nvlsim = nvlsim
        if job.running():
            self.jobs[key] = job

        self.decisions += 1
        self.busy_gpus += sum(len(g) for g, _ in used.values())
        self.refused += slurm_id is None
        problems = self.compare(job, nvlsim, shares=shards > 0)
        ok = not problems
        self.matched += ok
        self.shard_decisions += bool(shards)
        self.shard_matched += bool(shards) and ok
        what = f"{' '.join(salloc)} [shape {shape}]"
        if not ok:
            self.first_mismatch = self.first_mismatch or self.decisions
            print(f"MISMATCH decision {self.decisions} (operation {op}): {what}: {'; '.join(problems)}")
            print(f"  state:  {self.state_text(used)}")
            print(f"  slurm:  {self.slurm_text(job)}")
            print(f"  nvlsim: {nvlsim_text(nvlsim, self.args.sharing)}")
            if self.args.verbose:
                print(f"  placer question: {json.dumps(question, separators=(',', ':'))}")
        elif self.args.verbose:
            print(f"op {op}: decision {self.decisions}: {what}: {self.slurm_text(job)} (job {slurm_id or '-'}), same")
        # Only a refusal both agree on leaves the state the reservation is asked on unchanged and its
        # question well posed (nvlsim's reservation assumes the job does not start now).
        if self.reservations and slurm_id is None and nvlsim.alloc is None:
            self.reservations.check(f"decision {self.decisions} (operation {op}): {what}",
                                    {j.slurm_id: j.slurm for j in self.jobs.values() if j.slurm is not None},
                                    salloc, request)

    def compare(self, job, nvlsim, shares):
        """What differs between Slurm's answer and nvlsim's, as short phrases; empty when they agree. Both
        refusing a share request agree whatever they say of later: Slurm keeps more shares than a GPU has
        pending for ever, where nvlsim rejects the job (docs/sharing.md)."""
        if job.slurm is None and nvlsim.alloc is None:
            if shares:
                return []
            slurm_never = self.cluster.refusal != "pending"
            if slurm_never != nvlsim.never:
                return [f"both refuse, but Slurm {'never' if slurm_never else 'later'} and nvlsim "
                        f"{'never' if nvlsim.never else 'later'}"]
            return []
        if job.slurm is None or nvlsim.alloc is None:
            return ["only " + ("nvlsim" if job.slurm is None else "Slurm") + " starts the job"]
        problems = []
        if job.shards:
            slurm_set = {(t, g, n) for t, (g, n) in job.shards.items()}
        else:
            slurm_set = {(t, g, 0) for t, (gs, _) in job.slurm.items() for g in gs}
        if slurm_set != nvlsim.alloc:
            problems.append("other GPUs")
        elif self.args.compare_cpus:
            slurm_cpus = {t: c for t, (_, c) in job.slurm.items()}
            if slurm_cpus != nvlsim.cpus:
                problems.append("other CPU counts")
        return problems

    def slurm_answer(self, job, shards):
        """Slurm's allocation of a granted job: ({tray: (GPU indices, CPUs)}, {tray: (GPU, shards)} for a
        shard or MPS job else None)."""
        alloc = self.cluster.job_allocation(job)
        if not shards:
            return alloc, None
        held = {}
        for tray, gres in self.cluster.job_gres(job).items():
            count, gpus = gres.get(self.args.sharing, (0, ()))
            if count != shards or len(gpus) != 1:
                raise Fatal(f"job {job} holds {gres} on tray-{tray}, not {self.args.sharing}:{shards} of one GPU")
            held[tray] = (gpus[0], count)
        return alloc, held

    # Ends, failures and repairs.

    def end(self, op):
        key = self.rng.choice(list(self.jobs))
        for k in self.sharers(key):
            self.end_job(k, op)

    def end_job(self, key, op):
        job = self.jobs.pop(key)
        if job.slurm is not None:
            t0 = time.monotonic()
            self.cluster.cancel(job.slurm_id)
            self.seconds["scancel"] += time.monotonic() - t0
            if self.replay:
                self.replay.ended(op, key)
        if job.nvlsim is not None:
            self.placer.tell({"end": key})
        self.ends += 1
        if self.args.verbose:
            print(f"op {op}: end job {job.slurm_id or '-'} (submission {key})")

    def sharers(self, key):
        """KEY and, for a shard or MPS job, every running one sharing a GPU with it on either side,
        transitively. Slurm 22.05 makes a GPU whole again when any of its shard jobs ends, not its last
        (docs/sharing.md, scenario shard_release of sharing_probe.py; mps_release for MPS); ending such jobs
        together, with no decision in between, keeps the oracle off that defect, which nvlsim does not
        reproduce."""
        def gpus_of(k):
            job = self.jobs[k]
            held = {(tray, gpu) for tray, (gpu, _) in (job.shards or {}).items()}
            if job.nvlsim is not None and job.nvlsim.shards:
                held |= {(tray, gpu) for tray, gpu, _ in job.nvlsim.alloc}
            return held
        group, todo = [key], [key]
        while todo:
            gpus = gpus_of(todo.pop())
            for other in self.jobs:
                if other not in group and gpus & gpus_of(other):
                    group.append(other)
                    todo.append(other)
        return group

    def fail_or_repair(self, op):
        """A tray leaves service (its jobs end first, as a failure kills them) or one comes back."""
        up = [t for t in range(self.trays) if t not in self.down]
        repair = bool(self.down) and (len(self.down) >= MAX_DOWN_SHARE * self.trays or
                                      self.rng.random() < REPAIR_SHARE)
        if repair:
            tray = self.rng.choice(sorted(self.down))
            self.cluster.set_node_state(tray, "resume")
            del self.down[tray]
            self.repairs += 1
            if self.replay:
                self.replay.tray_up(op, tray)
        else:
            tray = self.rng.choice(up)
            for key in [k for k, j in self.jobs.items() if tray in self.trays_of(j)]:
                if key in self.jobs:
                    for k in self.sharers(key):
                        self.end_job(k, op)
            state = self.rng.choice(("down", "drain"))
            self.cluster.set_node_state(tray, state)
            self.down[tray] = state
            self.failures += 1
            if self.replay:
                self.replay.tray_down(op, tray)
        if self.closed:
            self.placer.tell({"up" if repair else "down": [tray]})
        if self.args.verbose:
            print(f"op {op}: tray-{tray} {'back in service' if repair else 'set ' + self.down[tray].upper()}")

    @staticmethod
    def trays_of(job):
        trays = set(job.slurm or ())
        if job.nvlsim is not None:
            trays |= {t for t, *_ in job.nvlsim.alloc}
        return trays

    # Text.

    def state_text(self, used):
        shards = self.shard_usage()

        def text(tray, gpus, cpus):
            return f"{gpu_text(gpus)}/{cpus}" + "".join(f"+s{g}:{n}" for g, n in sorted(shards.get(tray, {}).items()))
        trays = {t: text(t, g, c) for t, (g, c) in used.items()}
        for tray, state in self.down.items():
            trays[tray] = state.upper()
        return describe(trays)

    def slurm_text(self, job):
        if job.slurm is None:
            return "none" + ("" if self.cluster.refusal == "pending" else f" ({self.cluster.refusal})")
        gres = self.args.sharing
        return describe({t: (f"{gres}:{job.shards[t][1]}@{job.shards[t][0]}" if job.shards else gpu_text(g))
                         + f"/{c}" for t, (g, c) in job.slurm.items()})

    def check_slurm(self):
        """Slurm's answers were placements only if no node left service other than those the oracle took out,
        and no job ended by itself (at its time limit, in a long run) behind the oracle's back."""
        out = self.cluster.run(["sinfo", "-h", "-N", "-t", "down,drain,fail,no_respond", "-o", "%N %T"])
        out_of_service = {self.cluster.tray_of(line.split()[0]) for line in out.splitlines() if line.strip()}
        if out_of_service != set(self.down):
            raise Fatal(f"Slurm has trays {sorted(out_of_service)} out of service, the oracle took out "
                        f"{sorted(self.down)}: " + "; ".join(out.strip().splitlines()))
        running = {int(j) for j in self.cluster.run(["squeue", "-h", "-t", "running", "-o", "%i"]).split()}
        expected = {j.slurm_id for j in self.jobs.values() if j.slurm is not None}
        if running != expected:
            raise Fatal(f"Slurm runs jobs {sorted(running)}, the oracle expected {sorted(expected)}")


def nvlsim_text(answer, sharing):
    if answer.alloc is None:
        return "none" + (" (never)" if answer.never else "")
    per_tray = {}
    for t, g, n in answer.alloc:
        per_tray.setdefault(t, []).append((g, n))
    text = {}
    for t, held in per_tray.items():
        gpus = " ".join(f"{sharing}:{n}@{g}" for g, n in held) if held[0][1] else gpu_text(g for g, _ in held)
        text[t] = gpus + (f"/{answer.cpus[t]}" if t in answer.cpus else "")
    return describe(text)
