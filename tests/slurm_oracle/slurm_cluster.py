"""A private Slurm cluster on this machine: one slurmctld and one slurmd per emulated tray, all children of
this process, all state in a temporary folder. Slurm 22.05 is Debian 12's, installed on the machine; Slurm
24.11 is Debian 13's, run under chroot in the root slurm_root.py makes. Used by the placement oracle and
by tests that need a real Slurm. Facts it relies on (why each line of the configuration is there) are in
docs/policies.md, "Checked against Slurm"."""

import ctypes
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass

import slurm_root

SBIN = "/usr/sbin"
VERSIONS = ("22.05", "24.11")
DAEMONS = ("slurmctld", "slurmd", "slurmstepd")


class SlurmMissing(RuntimeError):
    """Slurm's daemons or clients are not installed."""


# Ports for the daemons are taken below Linux's ephemeral range (32768-60999), where clients' own sockets
# could otherwise land on them.
PORT_FIRST = 10000
PORT_END = 32768

# Messages with which salloc reports that Slurm will never start the request (rather than a failure of the
# cluster itself).
NEVER_STARTS = ("Requested node configuration is not available",
                "Requested partition configuration not available",
                "Requested topology configuration is not available")


def missing_programs():
    """Names of the programs of the machine's own Slurm (22.05) this module needs that are not installed."""
    needed = [f"{SBIN}/{d}-wlm" for d in DAEMONS] + ["salloc", "scontrol", "scancel", "squeue", "sinfo"]
    return [p for p in needed if not (os.path.exists(p) if p.startswith("/") else shutil.which(p))]


def why_unavailable(version):
    """Why Slurm VERSION cannot run here (a sentence), or None when it can. For 24.11 this makes the Debian 13
    root when it is missing (slurm_root.py), which takes about a minute once."""
    if version == "22.05":
        missing = missing_programs()
        return "Slurm 22.05 is not installed (missing " + ", ".join(missing) + ")" if missing else None
    try:
        slurm_root.ensure()
    except slurm_root.RootUnavailable as e:
        return f"Slurm 24.11 cannot run here: {e}"
    return None


@dataclass
class ClusterSpec:
    trays: int = 36
    gpus_per_tray: int = 4
    sockets: int = 2
    cores_per_socket: int = 72
    def_cpu_per_gpu: int = 0      # DefCpuPerGPU of the partition; 0 = unset
    topology_conf: str = ""       # text of topology.conf; empty = topology/none
    port_base: int = 0            # 0 = derived from the process id
    debug_select: bool = False
    # GPU sharing (docs/sharing.md): "" = whole GPUs only (gres/gpu), "shard" = gres/shard, "mps" = gres/mps,
    # each GPU of a tray carrying shares_per_gpu of them (one gres.conf line per GPU device file).
    sharing: str = ""
    shares_per_gpu: int = 0       # 0 = the default: 4 shards, or 100 mps (a percentage) per GPU
    sharing_flags: str = ""       # Flags= of the shard/mps lines of gres.conf (e.g. all_sharing); "" = none
    # Type= of the GPUs in gres.conf; None = "gb200" with sharing, untyped without. Slurm 22.05 keeps per-GPU
    # state (topology records) of gres/gpu only when a gres.conf line gives Type= or Cores=, and without it
    # does not keep whole-GPU jobs off GPUs that hold shards or MPS (docs/sharing.md).
    gpu_type: str = None
    slurm: str = "22.05"          # which Slurm: "22.05" (the machine's) or "24.11" (the Debian 13 root's)
    # ReturnToService: 2 lets a DOWN node return by itself when its slurmd answers; 0 keeps the trays a test
    # sets DOWN out of service until it resumes them.
    return_to_service: int = 2

    @property
    def shares(self):
        """Shares per GPU of the sharing GRES (0 without sharing)."""
        if not self.sharing:
            return 0
        return self.shares_per_gpu or (4 if self.sharing == "shard" else 100)

    @property
    def cpus_per_tray(self):
        return self.sockets * self.cores_per_socket

    @property
    def topology_plugin(self):
        """topology/block for a topology.conf of BlockName lines, topology/tree for SwitchName lines."""
        if not self.topology_conf:
            return "topology/none"
        return "topology/block" if re.search(r"^\s*BlockName=", self.topology_conf, re.M) else "topology/tree"


class SlurmCluster:
    """Context manager: starts the daemons on enter, stops them by PID on exit."""

    def __init__(self, spec: ClusterSpec, keep_dir=False):
        self.spec = spec
        self.keep_dir = keep_dir
        self.dir = None    # the cluster's folder, as this process sees it
        self.inner = None  # the same folder as the daemons see it (inside the root under 24.11)
        self.root = ""
        self.procs = []
        self.env = None

    def node_name(self, tray):
        return f"tray-{tray}"

    def __enter__(self):
        if self.spec.slurm not in VERSIONS:
            raise ValueError(f"ClusterSpec.slurm: {self.spec.slurm!r} is not one of {', '.join(VERSIONS)}")
        why = why_unavailable(self.spec.slurm)
        if why:
            raise SlurmMissing(why)
        # 24.11: the daemons and clients run under chroot, so everything they read lives inside the root, and
        # the configuration names it by its path there (self.inner).
        self.root = slurm_root.root_path() if self.spec.slurm == "24.11" else ""
        if self.root:
            try:
                slurm_root.enter(self.root)
            except slurm_root.RootUnavailable as e:
                raise SlurmMissing(str(e)) from e
        self.dir = tempfile.mkdtemp(prefix="nvlsim-slurm-", dir=os.path.join(self.root, "tmp") if self.root else None)
        self.inner = self.dir[len(self.root):] if self.root else self.dir
        try:
            self._write_files()
            self._start()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 10
        for proc in self.procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs = []
        if self.dir and not self.keep_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        return False

    def command(self, args):
        """ARGS as run against this cluster's Slurm: under chroot for 24.11."""
        return ["chroot", self.root] + list(args) if self.root else list(args)

    def _write_files(self):
        s = self.spec
        d = self.inner
        for sub in ("state", "spool", "run", "log", "dev", "bin", "etc"):
            os.makedirs(os.path.join(self.dir, sub))
        # The daemons read their role from their program name: started as slurmd-wlm, slurmd ignores the
        # Gres= line of slurm.conf.
        for daemon in DAEMONS:
            os.symlink(f"{SBIN}/{daemon}-wlm", os.path.join(self.dir, "bin", daemon))
        # GRES files must be character devices; the major/minor numbers are never opened.
        for g in range(s.gpus_per_tray):
            os.mknod(os.path.join(self.dir, "dev", f"nvidia{g}"), 0o600 | 0o020000, os.makedev(195, g))
        port = s.port_base or _free_port_block(s.trays + 1)
        self.ctld_port = port
        last = s.trays - 1
        node_port_first = port + 1
        conf = f"""ClusterName=oracle
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
SlurmctldPort={port}
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool/%n
SlurmctldPidFile={d}/run/slurmctld.pid
SlurmdPidFile={d}/run/slurmd-%n.pid
SlurmctldLogFile={d}/log/slurmctld.log
SlurmdLogFile={d}/log/slurmd-%n.log
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService={s.return_to_service}
SwitchType=switch/none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
TopologyPlugin={s.topology_plugin}
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes={"gpu," + s.sharing if s.sharing else "gpu"}
SlurmdParameters=config_overrides
"""
        if s.sharing not in ("", "shard", "mps"):
            raise ValueError(f"ClusterSpec.sharing: {s.sharing!r} is not '', 'shard' or 'mps'")
        gres_shares = f",{s.sharing}:{s.shares * s.gpus_per_tray}" if s.sharing else ""
        gpu_type = s.gpu_type if s.gpu_type is not None else ("gb200" if s.sharing else "")
        gres_gpus = f"gpu:{gpu_type}:{s.gpus_per_tray}" if gpu_type else f"gpu:{s.gpus_per_tray}"
        if s.debug_select:
            conf += "SlurmctldDebug=debug\nDebugFlags=SelectType,Gres\n"
        conf += (f"NodeName=tray-[0-{last}] NodeAddr=127.0.0.1 Port=[{node_port_first}-{node_port_first + last}] "
                 f"CPUs={s.cpus_per_tray} Sockets={s.sockets} CoresPerSocket={s.cores_per_socket} ThreadsPerCore=1 "
                 f"RealMemory=512000 Gres={gres_gpus}{gres_shares} State=UNKNOWN\n")
        part = f"PartitionName=gpu Nodes=tray-[0-{last}] Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO"
        if s.def_cpu_per_gpu:
            part += f" DefCpuPerGPU={s.def_cpu_per_gpu}"
        conf += part + "\n"
        etc = os.path.join(self.dir, "etc")
        if s.slurm == "24.11":
            # 24.11's slurmd will not start without a cgroup filesystem unless cgroups are off.
            with open(os.path.join(etc, "cgroup.conf"), "w") as f:
                f.write("CgroupPlugin=disabled\n")
        with open(os.path.join(etc, "slurm.conf"), "w") as f:
            f.write(conf)
        with open(os.path.join(etc, "gres.conf"), "w") as f:
            f.write("AutoDetect=off\n")
            typed = f" Type={gpu_type}" if gpu_type else ""
            f.write(f"NodeName=tray-[0-{last}] Name=gpu{typed} "
                    f"File={d}/dev/nvidia[0-{s.gpus_per_tray - 1}]\n")
            # One line per GPU: the shares of that GPU, bound to its device file.
            flags = f" Flags={s.sharing_flags}" if s.sharing_flags else ""
            for g in range(s.gpus_per_tray if s.sharing else 0):
                f.write(f"NodeName=tray-[0-{last}] Name={s.sharing} Count={s.shares} File={d}/dev/nvidia{g}"
                        f"{flags}\n")
        if s.topology_conf:
            with open(os.path.join(etc, "topology.conf"), "w") as f:
                f.write(s.topology_conf)
        self.env = dict(os.environ, SLURM_CONF=os.path.join(d, "etc", "slurm.conf"))
        for var in [k for k in self.env if k.startswith("SLURM_") and k != "SLURM_CONF"]:
            del self.env[var]

    def _start(self):
        d = self.inner
        conf = self.env["SLURM_CONF"]
        with open(os.path.join(self.dir, "log", "daemons.out"), "w") as log:
            def start(args):
                self.procs.append(subprocess.Popen(self.command(args), env=self.env, stdout=log, stderr=log,
                                                   stdin=subprocess.DEVNULL, **DETACHED))
            start([f"{d}/bin/slurmctld", "-D", "-i", "-f", conf])
            for tray in range(self.spec.trays):
                start([f"{d}/bin/slurmd", "-D", "-c", "-f", conf, "-d", f"{d}/bin/slurmstepd", "-N",
                       self.node_name(tray)])
        deadline = time.monotonic() + 60
        while True:
            dead = [p for p in self.procs if p.poll() is not None]
            if dead:
                raise RuntimeError(f"a Slurm daemon exited at start (status {dead[0].returncode}); "
                                   f"see {self.dir}/log")
            out = self.run(["sinfo", "-h", "-o", "%t %D"], check=False)
            states = dict(line.split() for line in out.splitlines() if line.strip())
            if states.get("idle") == str(self.spec.trays):
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"Slurm nodes not idle after 60 s: {states}; see {self.dir}/log")
            time.sleep(0.1)

    def run(self, args, check=True, timeout=60):
        try:
            res = subprocess.run(self.command(args), env=self.env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"{' '.join(args)} gave no answer in {timeout} s{self._dead()}") from None
        if check and res.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed ({res.returncode}): {res.stderr.strip()}"
                               + self._dead())
        return res.stdout

    def _dead(self):
        """Why a client failed or hung when a daemon has died (clients retry a dead slurmctld for long)."""
        dead = [f"{os.path.basename(p.args[2 if self.root else 0])}{' ' + p.args[-1] if p is not self.procs[0] else ''} "
                f"(status {p.returncode})" for p in self.procs if p.poll() is not None]
        return "; exited: " + ", ".join(dead) if dead else ""

    def allocate(self, args, timeout=60):
        """Runs `salloc --no-shell ARGS` (ARGS should include --immediate). Returns the job id once Slurm
        granted the allocation, or None when Slurm would not start the job now or ever.

        salloc --immediate=S waits S seconds for a pending job before giving up; Slurm decides at
        submission, so the job is cancelled as soon as salloc reports it pending (nothing else runs or
        ends meanwhile that could start it). After a None, self.refusal says why: "pending" (it would start
        later) or salloc's message (it never would)."""
        self.refusal = None
        proc = subprocess.Popen(self.command(["salloc", "--no-shell"] + args), env=self.env, text=True,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        lines = []
        try:
            for line in proc.stderr:
                lines.append(line.strip())
                granted = re.search(r"Granted job allocation (\d+)", line)
                if granted:
                    proc.wait(timeout)
                    return int(granted.group(1))
                pending = re.search(r"Pending job allocation (\d+)", line)
                if pending:
                    job = int(pending.group(1))
                    self.refusal = "pending"
                    self.cancel(job)
                    proc.wait(timeout)
                    return None
            proc.wait(timeout)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if proc.returncode != 0 and any(m in line for line in lines for m in NEVER_STARTS):
            self.refusal = next(line for line in lines if any(m in line for m in NEVER_STARTS))
            return None
        raise RuntimeError(f"salloc {' '.join(args)} failed ({proc.returncode}): {' / '.join(lines)}")

    def cancel(self, job, timeout=30):
        """Cancels a job and returns once it has left the queue and no node is COMPLETING (while one is,
        Slurm starts nothing)."""
        self.run(["scancel", str(job)])
        deadline = time.monotonic() + timeout
        while True:
            queued = self.run(["squeue", "-h", "-j", str(job)]).strip()
            completing = "" if queued else self.run(["sinfo", "-h", "-t", "completing", "-o", "%N"]).strip()
            if not queued and not completing:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"job {job} not gone {timeout} s after scancel: "
                                   f"squeue: {queued or '-'}; completing nodes: {completing or '-'}")
            time.sleep(0.01)

    def set_node_state(self, tray, state, timeout=30):
        """Takes a tray out of service ("down" or "drain"; its jobs must have ended) or back ("resume").
        A resumed node is not usable until slurmctld has heard from its slurmd again (sinfo shows it
        `idle*` meanwhile, for up to a second), so this returns once it answers: idle, or `blocked` when
        a job holds its block alone (--exclusive=topo)."""
        node = self.node_name(tray)
        args = ["scontrol", "update", f"NodeName={node}", f"State={state.upper()}"]
        self.run(args + ([] if state == "resume" else ["Reason=oracle"]))
        deadline = time.monotonic() + timeout
        while state == "resume":
            shown = self.run(["sinfo", "-h", "-n", node, "-o", "%T"]).strip()
            if shown in ("idle", "blocked"):
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"{node} is {shown!r}, not idle, {timeout} s after it was resumed")
            time.sleep(0.05)

    def job_allocation(self, job):
        """What a running job holds, from `scontrol show job -d`: {tray: (GPU indices, CPU count)}."""
        out = self.run(["scontrol", "show", "job", "-d", str(job)])
        state = re.search(r"JobState=(\S+)", out)
        if not state or state.group(1) != "RUNNING":
            raise RuntimeError(f"job {job} is {state.group(1) if state else 'unknown'}, not RUNNING")
        alloc = {}
        for m in re.finditer(r"^\s*Nodes=(\S+) CPU_IDs=(\S+).*?GRES=(\S*)", out, re.M):
            idx = re.search(r"gpu[^(]*\(IDX:([^)]*)\)", m.group(3))
            gpus = tuple(expand_ids(idx.group(1))) if idx else ()
            cpus = len(expand_ids(m.group(2)))
            for node in expand_hostlist(m.group(1)):
                alloc[self.tray_of(node)] = (gpus, cpus)
        if not alloc:
            raise RuntimeError(f"no per-node allocation in scontrol show job -d {job}:\n{out}")
        return alloc

    def job_gres(self, job):
        """Every GRES a running job holds, from `scontrol show job -d`: {tray: {name: (count, indices)}}, name
        without the type ("gpu", "shard", "mps"), indices the GPU (device) indices of the allocation: for
        gres/shard and gres/mps the GPUs the shares are taken from."""
        out = self.run(["scontrol", "show", "job", "-d", str(job)])
        alloc = {}
        for m in re.finditer(r"^\s*Nodes=(\S+) CPU_IDs=\S+.*?GRES=(\S*)", out, re.M):
            held = {}
            for g in re.finditer(r"([a-z]+)(?::[^:(,]+)?:(\d+)(?:\(IDX:([^)]*)\))?", m.group(2)):
                held[g.group(1)] = (int(g.group(2)), tuple(expand_ids(g.group(3))) if g.group(3) else ())
            for node in expand_hostlist(m.group(1)):
                alloc[self.tray_of(node)] = held
        return alloc

    def tray_of(self, node):
        return int(node.rsplit("-", 1)[1])


def expand_ids(text):
    """'0-2,5' -> [0, 1, 2, 5] (Slurm's CPU_IDs and GRES IDX lists)."""
    ids = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        ids.extend(range(int(first), int(last or first) + 1))
    return ids


def compress_ids(ids):
    """[0, 1, 2, 5] -> '0-2,5' (the inverse of expand_ids for sorted, distinct ids)."""
    runs = []
    for i in ids:
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def expand_hostlist(text):
    """'tray-[1-3,7],gpu-2' -> ['tray-1', 'tray-2', 'tray-3', 'tray-7', 'gpu-2']."""
    names = []
    for prefix, ranges, plain in re.findall(r"([^,\[]+)\[([^\]]*)\]|([^,\[]+)", text):
        if plain:
            names.append(plain)
        else:
            names.extend(f"{prefix}{i}" for i in expand_ids(ranges))
    return names


def _free_port_block(count):
    """First port of COUNT consecutive free ports, starting from a slot derived from the process id so that
    clusters started at the same time by different processes do not pick the same ports."""
    slots = (PORT_END - PORT_FIRST) // count
    start = os.getpid() % slots
    for i in range(slots):
        first = PORT_FIRST + (start + i) % slots * count
        if all(_port_free(p) for p in range(first, first + count)):
            return first
    raise RuntimeError(f"no {count} consecutive free ports in {PORT_FIRST}-{PORT_END - 1}")


def _port_free(port):
    with socket.socket() as sock:
        # The daemons bind all addresses with SO_REUSEADDR, so a port in TIME_WAIT is free for them.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("", port))
            return True
        except OSError:
            return False


_PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)


def _die_with_parent():
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


# Popen arguments for helper processes: in their own session, so that Ctrl-C reaches only the test, which
# then stops them in order; and sent SIGTERM when the test dies, even by SIGKILL (a ctest timeout), so
# none outlives it.
DETACHED = dict(start_new_session=True, preexec_fn=_die_with_parent)
