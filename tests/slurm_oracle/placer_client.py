"""The oracle's side of nvlsim-oracle-place: the long-lived placer process, the oracle's fatal error, and
the compact text the oracle prints trays and GPUs in."""

import json
import os
import select
import subprocess
import time

from slurm_cluster import DETACHED, compress_ids

PLACER_TIMEOUT = 60  # seconds to wait for one answer


class Fatal(Exception):
    """The oracle cannot go on (bad setup, placer or Slurm failure): exit status 2."""


def tray_list(trays):
    """Slurm hostlist of tray numbers: tray-5, tray-[0-7]."""
    return f"tray-{trays[0]}" if len(trays) == 1 else f"tray-[{compress_ids(trays)}]"


def describe(trays):
    """Compact text of {tray: text}: consecutive trays with the same text are grouped."""
    groups = []
    for tray in sorted(trays):
        if groups and groups[-1][0][-1] == tray - 1 and groups[-1][1] == trays[tray]:
            groups[-1][0].append(tray)
        else:
            groups.append(([tray], trays[tray]))
    return " ".join(f"{tray_list(ts)}:{text}" for ts, text in groups) or "-"


def gpu_text(gpus):
    return "".join(map(str, sorted(gpus)))


class Decision:
    """The placer's answer to a submission: alloc, a set of (tray, GPU, shards) or None when it would not start
    the job now; cpus, {tray: cores held}; salloc, the options that ask Slurm for what the policy stands for
    (docs/policies.md); never, True when it would not start the job on an empty machine either; shards, the
    shares of each GPU the job takes (0: whole GPUs)."""

    def __init__(self, alloc, cpus, salloc, never, shards):
        self.alloc, self.cpus, self.salloc, self.never, self.shards = alloc, cpus, salloc, never, shards


class Placer:
    """The long-lived nvlsim placer: one JSON line in, one JSON line out per decision."""

    def __init__(self, argv):
        self.argv = argv
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, **DETACHED)
        except OSError as e:
            raise Fatal(f"cannot start the placer {argv[0]}: {e}") from e
        self.pending = b""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.proc.stdin.close()
        except OSError:
            pass  # it died already; its status is reported where that was noticed
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return False

    def ask(self, request):
        """The placer's allocation as a set of (tray, GPU, shards), shards 0 for a GPU held whole, or None when
        it would not start the job."""
        line = self._exchange(request)
        return self._alloc(self._answer(line, "alloc"), line)

    def decide(self, question):
        """The placer's whole answer to a submission (Decision)."""
        line = self._exchange(question)
        answer = self._answer(line, "alloc")
        salloc = answer.get("salloc")
        cpus = answer.get("cpus", [])
        if not (isinstance(salloc, list) and salloc and all(isinstance(a, str) for a in salloc)):
            raise Fatal(f"the placer's answer has no salloc options: {line!r}")
        try:
            cpus = {int(t): int(c) for t, c in cpus}
        except (TypeError, ValueError):
            raise Fatal(f"the placer's cpus are not [[tray, count], ...]: {line!r}") from None
        return Decision(self._alloc(answer, line), cpus, salloc, bool(answer.get("never", False)),
                        answer.get("shards", 0))

    def tell(self, notice):
        """Tells a closed-loop placer what happened (a job ended, trays down or up); it answers ok."""
        line = self._exchange(notice)
        try:
            answer = json.loads(line)
        except ValueError:
            answer = None
        if isinstance(answer, dict) and "error" in answer:
            raise Fatal(f"the placer reported: {answer['error']} (told {notice})")
        if answer != {"ok": True}:
            raise Fatal(f"the placer answered {line!r} to {notice}")

    def reserve(self, question):
        """The placer's reservation: (start, set of (tray, GPU, shards)), or None when the job never fits."""
        line = self._exchange(question)
        answer = self._answer(line, "start")
        alloc = self._alloc(answer, line)
        start = answer["start"]
        if (start is None) != (alloc is None) or not (start is None or isinstance(start, (int, float))):
            raise Fatal(f"the placer's reservation is not {{start: T, alloc: [...]}}: {line!r}")
        return None if start is None else (start, alloc)

    def _exchange(self, request):
        try:
            self.proc.stdin.write(json.dumps(request, separators=(",", ":")).encode() + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise Fatal(self._gone()) from None
        return self._read_line()

    def _read_line(self):
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + PLACER_TIMEOUT
        while b"\n" not in self.pending:
            if not select.select([fd], [], [], max(0, deadline - time.monotonic()))[0]:
                raise Fatal(f"the placer gave no answer within {PLACER_TIMEOUT} s")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise Fatal(self._gone())
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line.decode(errors="replace")

    def _gone(self):
        try:
            status = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            status = "still running"
        return f"the placer closed its pipes without answering (status {status}): {' '.join(self.argv)}"

    @staticmethod
    def _answer(line, key):
        """The answer as a dict holding KEY and alloc (or an error, which stops the run)."""
        try:
            answer = json.loads(line)
        except ValueError:
            raise Fatal(f"the placer answered with invalid JSON: {line!r}") from None
        if isinstance(answer, dict) and "error" in answer:
            raise Fatal(f"the placer reported: {answer['error']}")
        if not isinstance(answer, dict) or key not in answer or "alloc" not in answer:
            raise Fatal(f"the placer answered neither {key} nor error: {line!r}")
        return answer

    @staticmethod
    def _alloc(answer, line):
        if answer["alloc"] is None:
            return None

        def is_int(x):
            return isinstance(x, int) and not isinstance(x, bool)
        shards = answer.get("shards", 0)
        try:
            if is_int(shards) and shards >= 0 and all(is_int(tray) and all(is_int(g) for g in gpus)
                                                      for tray, gpus in answer["alloc"]):
                return {(tray, g, shards) for tray, gpus in answer["alloc"] for g in gpus}
        except (TypeError, ValueError):
            pass
        raise Fatal(f"the placer's alloc is not [[tray, [gpu, ...]], ...] with shards >= 0: {line!r}")
