#!/usr/bin/env python3
"""Slurm 24.11 for the oracle: a Debian 13 ("trixie") root with Debian's slurmctld, slurmd and slurm-client,
made once with mmdebstrap from Debian's registry and cached outside the clone, and the private mounts its
daemons need to run under chroot.

    tests/slurm_oracle/slurm_root.py ensure     # create the root when missing; print its path
    tests/slurm_oracle/slurm_root.py path       # print where it is (or would be)

The root lives in $NVLSIM_SLURM_ROOT, else ${XDG_CACHE_HOME:-~/.cache}/nvlsim/slurm-24.11-trixie (about
180 MB, one minute to make). It counts as present only once the marker file written after a complete,
checked build exists: an interrupted build is made again, never used. Concurrent `ensure` calls wait for
one another (a lock file beside the root).

Why a chroot: Debian 12 stops at Slurm 22.05, which has no topology/block (it arrived in 23.11); Debian 13
ships 24.11.5 with topology_block.so, and its binaries need trixie's libraries. The daemons see /proc, /sys,
/dev and the machine's /etc/hosts through bind mounts made in a mount namespace of the calling process
alone (enter()), so nothing stays mounted when it ends, however it ends.

Exit status of the command: 0 done, 1 the build failed, 77 it cannot be done here (not root, no
mmdebstrap), which the tests report as a skip (a failure with CI=true).
"""

import ctypes
import fcntl
import glob
import os
import re
import shutil
import subprocess
import sys
import time

SUITE = "trixie"
PACKAGES = ("slurmctld", "slurmd", "slurm-client")
VERSION = "24.11"  # the Slurm release trixie ships; checked against slurmctld -V after each build
MARKER = ".nvlsim-slurm-root"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
BUILD_TIMEOUT = 1200  # seconds; a normal build takes about one


class RootUnavailable(RuntimeError):
    """The root cannot be made or used on this machine (not root, no mmdebstrap): a skip, not a failure."""


def root_path():
    explicit = os.environ.get("NVLSIM_SLURM_ROOT")
    if explicit:
        return os.path.abspath(explicit)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "nvlsim", f"slurm-{VERSION}-{SUITE}")


def is_ready(root):
    return os.path.isfile(os.path.join(root, MARKER))


def mirror():
    """The Debian mirror this machine's apt uses (deb822 .sources files, then sources.list), so that the root
    comes from the same registry; Debian's own when none names one."""
    texts = []
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")) + ["/etc/apt/sources.list"]:
        try:
            with open(path) as f:
                texts.append(f.read())
        except OSError:
            continue
    for text in texts:
        for uri in re.findall(r"^\s*(?:URIs:\s*|deb\s+(?:\[[^\]]*\]\s+)?)(\S+)", text, re.M):
            if "security" not in uri and uri.rstrip("/").endswith("/debian"):
                return uri
    return DEFAULT_MIRROR


def slurm_version(root):
    """The version slurmctld in the root reports, e.g. '24.11.5'."""
    res = subprocess.run(["chroot", root, "/usr/sbin/slurmctld-wlm", "-V"], capture_output=True, text=True,
                         timeout=60)
    found = re.search(r"(\d+\.\d+\.\d+)", res.stdout + res.stderr)
    if res.returncode != 0 or not found:
        raise RuntimeError(f"slurmctld -V in {root} failed ({res.returncode}): {res.stderr.strip()}")
    return found.group(1)


def check_can_build():
    if os.geteuid() != 0:
        raise RootUnavailable("making and using the Slurm 24.11 root needs root (chroot, mounts)")
    if not shutil.which("mmdebstrap"):
        raise RootUnavailable("mmdebstrap is not installed (apt-get install mmdebstrap)")


def ensure(log=sys.stderr):
    """The root's path, building it first when it is missing or incomplete."""
    root = root_path()
    if is_ready(root):
        return root
    check_can_build()
    os.makedirs(os.path.dirname(root), exist_ok=True)
    with open(root + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_ready(root):  # another process built it while this one waited
            return root
        build(root, log)
    return root


def build(root, log):
    partial = f"{root}.partial-{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)
    source = mirror()
    print(f"slurm-root: making a Debian {SUITE} root with {', '.join(PACKAGES)} from {source} in {root} "
          "(about a minute, once)", file=log, flush=True)
    start = time.monotonic()
    argv = ["mmdebstrap", "--quiet", "--variant=apt", "--include=" + ",".join(PACKAGES), SUITE, partial, source]
    try:
        res = subprocess.run(argv, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    except subprocess.TimeoutExpired:
        shutil.rmtree(partial, ignore_errors=True)
        raise RuntimeError(f"mmdebstrap gave no result in {BUILD_TIMEOUT} s") from None
    if res.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        tail = "\n".join((res.stderr or res.stdout).strip().splitlines()[-15:])
        raise RuntimeError(f"{' '.join(argv)} failed ({res.returncode}):\n{tail}")
    version = slurm_version(partial)
    if not version.startswith(VERSION + "."):
        shutil.rmtree(partial, ignore_errors=True)
        raise RuntimeError(f"Debian {SUITE} gave Slurm {version}, not {VERSION}")
    with open(os.path.join(partial, MARKER), "w") as f:
        f.write(f"slurm {version} from {source} {SUITE}\n")
    if os.path.lexists(root):  # an incomplete earlier root, without the marker
        shutil.rmtree(root)
    os.rename(partial, root)
    print(f"slurm-root: Slurm {version} ready in {time.monotonic() - start:.0f} s", file=log, flush=True)


_CLONE_NEWNS = 0x00020000
_MS_BIND = 0x1000
_MS_REC = 0x4000
_MS_PRIVATE = 1 << 18
_libc = ctypes.CDLL(None, use_errno=True)
_entered = set()


def _mount(source, target, fstype, flags):
    if _libc.mount(source.encode(), target.encode(), fstype.encode() if fstype else None, flags, None) != 0:
        err = ctypes.get_errno()
        raise RuntimeError(f"mount {source} on {target}: {os.strerror(err)}")


def enter(root):
    """Gives this process (and the daemons and clients it starts afterwards) a mount namespace of its own in
    which the root has /proc, /sys and /dev. Once per root; the mounts vanish with the process."""
    if root in _entered:
        return
    if not _entered:
        if _libc.unshare(_CLONE_NEWNS) != 0:
            raise RootUnavailable(f"unshare(CLONE_NEWNS): {os.strerror(ctypes.get_errno())}")
        # Private first, so that nothing mounted below reaches the machine's own namespace.
        _mount("none", "/", None, _MS_REC | _MS_PRIVATE)
    _mount("proc", os.path.join(root, "proc"), "proc", 0)
    _mount("/sys", os.path.join(root, "sys"), None, _MS_BIND | _MS_REC)
    _mount("/dev", os.path.join(root, "dev"), None, _MS_BIND | _MS_REC)
    # The machine's own host names: without them (mmdebstrap writes no /etc/hosts) slurmctld's lookups of
    # this host's name go to DNS, and every few requests one waits out the resolver's 5 s timeout.
    hosts = os.path.join(root, "etc", "hosts")
    if not os.path.exists(hosts):
        open(hosts, "a").close()
    _mount("/etc/hosts", hosts, None, _MS_BIND)
    _entered.add(root)


def main(argv):
    if len(argv) != 2 or argv[1] not in ("ensure", "path"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    if argv[1] == "path":
        print(root_path())
        return 0
    try:
        print(ensure())
    except RootUnavailable as e:
        print(f"slurm-root: cannot make the root here: {e}", file=sys.stderr)
        return 1 if os.environ.get("CI") == "true" else 77
    except (OSError, RuntimeError) as e:
        print(f"slurm-root: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
