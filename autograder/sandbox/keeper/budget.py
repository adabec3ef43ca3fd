"""One budget for a worker's whole process tree: memory, processes and CPU share.

Per-process rlimits (confine.set_limits) cannot bound a tree: three forked children of
1.5 GiB each stay under a 4 GiB address-space limit apiece. So each worker gets a control
group of its own, a child of the grading process's own group for each controller (never a
change to a group above ours):

    cgroup v1 (this machine)   memory/<ours>/autograder-worker-<keeper pid>   memory.limit_in_bytes (+ memsw)
                               pids/<ours>/autograder-worker-<keeper pid>     pids.max
                               cpu/<ours>/autograder-worker-<keeper pid>      cpu.cfs_quota_us = 1 core
    cgroup v2                  <ours>/autograder-worker-<keeper pid>          memory.max, memory.swap.max,
                                                                         pids.max, cpu.max

The keeper (the worker's parent, see template.py) creates it, the worker joins it as its
first act (as root, before a line of the notebook exists in its memory), and the keeper
removes it once the worker is reaped; a group left behind by a keeper that was SIGKILLed
is swept by the next template that starts.

Where no group can be made (no root, a read-only cgroupfs as in many containers, v2
without delegated controllers) the keeper runs a Watchdog instead: every SAMPLE_SECONDS
it sums the proportional set size (PSS: shared pages split between their sharers) of
every process of the tree (read through a thread that holds its memory), its page tables,
mapping areas and shared anonymous objects, and what the worker's private tmpfs mounts hold
(/tmp, /var/tmp, /dev/shm: files there are memory no process maps), and SIGKILLs the whole
tree at the cap. Memory held by no mapping and no file of those mounts (memfd, System V
segments) is refused by syscalls.py. It can be overshot by what the tree allocates between
two samples, and it does not see kernel buffers (pipes, sockets), which only a group counts;
the per-process address-space limit still bounds each process. It fails closed: a process
of the tree that /proc will not show it (not dumpable) ends the tree, as a folder it may not
list does, and so do a sample that takes too long and a tree that changes pids too fast.
"""
import errno
import os
import signal
import stat
import time
from typing import TypeGuard

from ...linux.libc import exiting_child
from ...settings import Limits

GROUP_PREFIX = "autograder-worker-"
CPU_CORES = 1.0  # CPU share of one worker tree: a hog of any size takes at most one core
CPU_PERIOD_US = 100_000
SAMPLE_SECONDS = 0.1  # the watchdog's sampling interval


# ---- where our own groups are -------------------------------------------------------------------------
def _own_paths() -> dict[str, str]:
    """{controller or "" (v2): our group's path} from /proc/self/cgroup."""
    paths = {}
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                paths[controller] = path
    return paths


def _mounts() -> list[tuple[str, str, str, list[str]]]:
    """[(fstype, mount point, root within the hierarchy, super options)] of cgroup file systems."""
    found = []
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            fields = line.split()
            sep = fields.index("-")
            fstype = fields[sep + 1]
            if fstype in ("cgroup", "cgroup2"):
                found.append((fstype, _unescape(fields[4]), _unescape(fields[3]), fields[sep + 3].split(",")))
    return found


def _unescape(text: str) -> str:
    return text.encode().decode("unicode_escape").encode("latin-1").decode()


def _inside(mount_point: str, mount_root: str, path: str) -> str | None:
    """The directory of cgroup ``path`` in a hierarchy mounted at ``mount_point`` (whose root is ``mount_root``)."""
    rel = os.path.relpath(path, mount_root)
    if rel.startswith(".."):
        return None
    return os.path.normpath(os.path.join(mount_point, rel))


def _writable_dir(path: str | None) -> TypeGuard[str]:
    return path is not None and os.path.isdir(path) and os.access(path, os.W_OK)


def parents() -> tuple[str | None, dict[str, str]]:
    """("v1", {controller: our group's directory}) or ("v2", {"": directory}) or (None, {})."""
    try:
        own, mounts = _own_paths(), _mounts()
    except OSError:
        return None, {}
    v1 = {}
    for controller in ("memory", "pids", "cpu"):
        for fstype, point, root, options in mounts:
            if fstype == "cgroup" and controller in options and controller in own:
                v1[controller] = _inside(point, root, own[controller])
                break
    if len(v1) == 3 and all(_writable_dir(p) for p in v1.values()):
        return "v1", v1  # type: ignore[return-value]  # every value is a directory (_writable_dir)
    for fstype, point, root, _ in mounts:
        if fstype == "cgroup2" and "" in own:
            directory = _inside(point, root, own[""])
            if _writable_dir(directory) and _v2_controllers(directory):
                return "v2", {"": directory}
    return None, {}


def _v2_controllers(directory: str) -> bool:
    """Enable memory, pids and cpu for our children (our own group only); False when v2 will not."""
    try:
        with open(os.path.join(directory, "cgroup.controllers")) as handle:
            available = set(handle.read().split())
        if not {"memory", "pids", "cpu"} <= available:
            return False
        with open(os.path.join(directory, "cgroup.subtree_control")) as handle:
            enabled = set(handle.read().split())
        if not {"memory", "pids", "cpu"} <= enabled:
            # Refused while our group holds processes itself (v2's no-internal-process rule): fall back.
            _write(os.path.join(directory, "cgroup.subtree_control"), "+memory +pids +cpu")
        return True
    except OSError:
        return False


def _write(path: str, value: object) -> None:
    with open(path, "w") as handle:
        handle.write(str(value))


_PARENTS: tuple[str | None, dict[str, str]] = None  # type: ignore[assignment]  # None until mechanism() sets it


def mechanism() -> str:
    """"cgroup v1", "cgroup v2" or "watchdog": what bounds a worker tree on this machine, for this process."""
    global _PARENTS
    if _PARENTS is None:
        # Any user may have a writable group (root's tree, or one delegated to a non-root user); a
        # read-only cgroup file system (a container's) or none leaves the watchdog.
        _PARENTS = (None, {}) if os.environ.get("AUTOGRADER_NO_CGROUPS") else parents()
    return f"cgroup {_PARENTS[0]}" if _PARENTS[0] else "watchdog"


# ---- one worker's group ----------------------------------------------------------------------------------
class Group:
    """A worker tree's control group (one directory per v1 controller, or one v2 directory)."""

    def __init__(self, version: str | None, directories: list[str]) -> None:
        self.version, self.directories = version, directories

    @classmethod
    def create(cls, name: str, memory_mib: int, processes: int) -> "Group | None":
        """Make and configure the group; None where this machine offers no writable cgroups."""
        mechanism()
        version, parent_dirs = _PARENTS
        if not version:
            return None
        directories = [os.path.join(d, name) for d in parent_dirs.values()]
        group = cls(version, directories)
        try:
            for directory in directories:
                os.mkdir(directory, 0o755)
            group._configure(memory_mib << 20, processes)
        except OSError:
            group.remove()
            return None
        return group

    def _configure(self, memory: int, processes: int) -> None:
        quota = int(CPU_CORES * CPU_PERIOD_US)
        if self.version == "v1":
            memory_dir, pids_dir, cpu_dir = self.directories
            _write(os.path.join(memory_dir, "memory.limit_in_bytes"), memory)
            if os.path.exists(os.path.join(memory_dir, "memory.memsw.limit_in_bytes")):
                _write(os.path.join(memory_dir, "memory.memsw.limit_in_bytes"), memory)  # no escape into swap
            _write(os.path.join(pids_dir, "pids.max"), processes)
            _write(os.path.join(cpu_dir, "cpu.cfs_period_us"), CPU_PERIOD_US)
            _write(os.path.join(cpu_dir, "cpu.cfs_quota_us"), quota)
        else:
            (directory,) = self.directories
            _write(os.path.join(directory, "memory.max"), memory)
            if os.path.exists(os.path.join(directory, "memory.swap.max")):
                _write(os.path.join(directory, "memory.swap.max"), 0)
            _write(os.path.join(directory, "pids.max"), processes)
            _write(os.path.join(directory, "cpu.max"), f"{quota} {CPU_PERIOD_US}")

    def join(self) -> None:
        """Move the calling process into the group (the worker, first thing, still root)."""
        for directory in self.directories:
            _write(os.path.join(directory, "cgroup.procs"), 0)  # 0: the writer itself

    def pids(self) -> set[int]:
        found = set()
        for directory in self.directories:
            try:
                with open(os.path.join(directory, "cgroup.procs")) as handle:
                    found |= {int(p) for p in handle.read().split()}
            except OSError:
                pass
        return found

    def peak_bytes(self) -> int | None:
        """The tree's peak memory so far (what the tests measure); None where the kernel does not say."""
        name = "memory.max_usage_in_bytes" if self.version == "v1" else "memory.peak"
        try:
            with open(os.path.join(self.directories[0], name)) as handle:
                return int(handle.read())
        except (OSError, ValueError):
            return None

    def remove(self, timeout: float = 5.0) -> bool:
        """SIGKILL anything still inside, then remove every directory; True once all are gone."""
        end = time.monotonic() + timeout
        while True:
            for pid in self.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            for directory in list(self.directories):
                try:
                    os.rmdir(directory)
                except FileNotFoundError:
                    pass
                except OSError:  # EBUSY: a task is still on its way out
                    continue
                self.directories.remove(directory)
            if not self.directories:
                return True
            if time.monotonic() > end:
                return False
            time.sleep(0.01)


def group_name(keeper_pid: int) -> str:
    """Unique while the keeper lives; its start time tells a stale group from a live one after pid reuse."""
    return f"{GROUP_PREFIX}{keeper_pid}-{_start_time(keeper_pid)}"


def _start_time(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def sweep() -> None:
    """Remove the groups of keepers that are gone (SIGKILLed before they could clean up)."""
    mechanism()
    for parent in _PARENTS[1].values():
        try:
            names = [n for n in os.listdir(parent) if n.startswith(GROUP_PREFIX)]
        except OSError:
            continue
        for name in names:
            pid, _, started = name[len(GROUP_PREFIX):].partition("-")
            if pid.isdigit() and _start_time(int(pid)) != started:
                Group(_PARENTS[0], [os.path.join(parent, name)]).remove(timeout=0.5)


# ---- the fallback ----------------------------------------------------------------------------------------
def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    return children


def descendants(pid: int) -> list[int]:
    """Every live process under ``pid`` (by parent links; orphans come back to a subreaper)."""
    children, found, todo = _children_map(), [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


REFUSED_ERRNOS = (errno.EACCES, errno.EPERM)  # /proc's answer for a process we may not read (not one that is gone)


def _at(where: int | str) -> str:
    """A process's /proc directory: a pid, or a directory already (one of its threads', see _view)."""
    return where if isinstance(where, str) else f"/proc/{where}"


def _status(where: int | str) -> dict[str, str]:
    """/proc/PID/status as {field: value}: readable whatever the process's dumpability; {} when it is gone."""
    try:
        with open(f"{_at(where)}/status") as handle:
            return dict(line.rstrip("\n").split(":\t", 1) for line in handle if ":\t" in line)
    except OSError:
        return {}


def _holds(status: dict[str, str]) -> bool:
    """Whether a task still has its memory: neither gone, a zombie, nor on its way out. Once a task has let go of
    its memory (exit_mm: no Vm lines in its status) the kernel shows its /proc files as root's until it is a
    zombie, for as long as tearing down its address space takes (a child killed holding 1.5 GiB: long enough for
    samples to land in it)."""
    return status.get("State", "Z")[:1] not in ("Z", "X", "x") and "VmRSS" in status


def _view(pid: int) -> tuple[str, dict[str, str]] | None:
    """The /proc directory through which a process's memory and files are seen, and that task's status; None when
    no thread of it holds any.

    /proc/PID itself, unless its first thread has exited while others run (syscall(SYS_exit) on the main thread):
    then /proc/PID is a zombie's, with no memory, no files and no root to show, while its other threads hold them
    all. Those are seen through /proc/PID/task/TID of a thread that lives (docs/history.md: zombie_leader)."""
    status = _status(pid)
    if _holds(status):
        return _at(pid), status
    if not status:
        return None
    try:
        threads = sorted(os.listdir(f"/proc/{pid}/task"), key=int)
    except (OSError, ValueError):
        return None
    for tid in threads:
        where = f"/proc/{pid}/task/{tid}"
        status = _status(where)
        if _holds(status):
            return where, status
    return None


def _pss_bytes(where: int | str) -> int | None:
    """The process's PSS; None where /proc refuses to show it (not dumpable: prctl, or an execute-only binary)."""
    try:
        with open(f"{_at(where)}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) << 10
    except OSError as err:
        if err.errno in REFUSED_ERRNOS:
            return None
    except ValueError:
        pass
    return 0  # gone meanwhile, or a zombie (no Pss line): it holds nothing


def _kib(status: dict[str, str], field: str) -> int:
    """A ``NNN kB`` field of a status, in bytes (0 when absent)."""
    try:
        return int(status.get(field, "0 kB").split()[0]) << 10
    except (IndexError, ValueError):
        return 0


def _listed_bytes(status: dict[str, str]) -> int:
    """What a process held when the sample listed it (its status then): private and shared anonymous memory. The
    order in which a sample reads the tree: the biggest holders first, a few milliseconds after the listing
    (docs/history.md: slow_hop)."""
    return _kib(status, "RssAnon") + _kib(status, "RssShmem")


def _page_table_bytes(status: dict[str, str]) -> int:
    """The process's page tables (VmPTE, from its status): kernel memory its PSS does not show (a page-table page
    per 2 MiB read of the zero page, which no process's Rss holds)."""
    try:
        return int(status.get("VmPTE", "0 kB").split()[0]) << 10
    except (IndexError, ValueError):
        return 0


# A sample that takes longer leaves seconds unwatched (docs/history.md: slow_watchdog). An honest process takes about
# 1.2 ms of the keeper's CPU to read (smaps_rollup walks its page tables: a forked PyTorch worker's), so an honest tree
# at its process cap (256) takes ~0.35 s, more on a loaded machine: each process read adds SAMPLE_SECONDS_PER_PROCESS
# (3x that) to the base allowance. The attack's processes took tens of ms each (65,000 areas).
SLOW_SAMPLE_SECONDS = 0.5
SAMPLE_SECONDS_PER_PROCESS = 0.004
RELIST_PASSES = 3  # a sample's listings of the tree: the first, and two for processes started while it read
AREA_BYTES = 200  # a mapping area's kernel memory (vm_area_struct and its links): 6.5 M areas took ~1.3 GiB


SHARED_ANONYMOUS = b" /dev/zero (deleted)"  # how maps names a MAP_SHARED|MAP_ANONYMOUS (or shared /dev/zero) mapping


def _maps(where: int | str) -> tuple[int, dict[bytes, int]] | None:
    """From /proc/PID/maps: how many mapping areas the process has, and its shared anonymous mappings as {inode:
    bytes up to their end}; None when it is gone or unreadable.

    A shared anonymous mapping's pages live in a kernel object of their own: after madvise(MADV_DONTNEED) the
    process maps none of them, so its PSS shows none, but the object keeps every page written (docs/history.md:
    shared_anonymous). Such a mapping is charged at its whole size, once per object however many processes map
    it; an honest tree has none. Measured: 13.5 ms of CPU for a process with 65k areas (its smaps_rollup: 5.5
    ms), well under a millisecond for an honest one; a tree that makes this slow ends at SLOW_SAMPLE_SECONDS."""
    try:
        with open(f"{_at(where)}/maps", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    shared: dict[bytes, int] = {}
    if SHARED_ANONYMOUS in data:
        for line in data.splitlines():
            if line.endswith(SHARED_ANONYMOUS):
                span, _perms, offset, _device, inode = line.split()[:5]
                start, stop = (int(x, 16) for x in span.split(b"-"))
                shared[inode] = max(shared.get(inode, 0), int(offset, 16) + stop - start)
    return data.count(b"\n"), shared


def _filters(status: dict[str, str]) -> int | None:
    """How many seccomp filters a task runs under (its Seccomp_filters field, Linux 5.9 and later; None
    without it)."""
    try:
        return int(status["Seccomp_filters"])
    except (KeyError, ValueError):
        return None


def _confined(status: dict[str, str], keeper_filters: int | None) -> bool:
    """Whether the task runs under the worker's system-call filter: one filter more than its keeper runs under.
    Not the Seccomp mode alone: in a Docker-like container every process runs under the runtime's filter, the
    worker too in the moment before its own, while it is still root changing uid and its keeper, reading as the
    worker's uid, may not read it (that moment is the grader's own code, not a blind spot: the environments'
    docker-root batch lost honest grades to it). Unknown (a kernel older than 5.9): not confined."""
    found = _filters(status)
    return found is not None and keeper_filters is not None and found > keeper_filters


PRIVATE_MOUNTS = ("tmp", "var/tmp", "dev/shm", "dev/mqueue")  # confine.build_filesystem's tmpfs scratch


def _tmpfs_bytes(worker: str, disk_mib: int) -> int | None:
    """What the worker's private tmpfs mounts hold, seen through its root (``worker``: its /proc directory, see
    _view); None where /proc refuses us its root.

    Only once the worker stands on a root of its own (before pivot_root its /tmp is the
    host's), and only mounts no larger than the scratch size confine.py gives them.
    """
    try:
        own, host = os.stat(f"{worker}/root/"), os.stat("/")
    except OSError as err:
        return None if err.errno in REFUSED_ERRNOS else 0
    if (own.st_dev, own.st_ino) == (host.st_dev, host.st_ino):
        return 0
    used, seen = 0, set()
    for mount in PRIVATE_MOUNTS:
        try:
            st = os.statvfs(f"{worker}/root/{mount}")
        except OSError:
            continue
        if st.f_fsid not in seen and st.f_blocks * st.f_frsize <= disk_mib << 20:
            seen.add(st.f_fsid)
            used += (st.f_blocks - st.f_bfree) * st.f_frsize
    return used


def _scratch_bytes(scratch: str, max_entries: int) -> tuple[int, int, bool]:
    """(bytes, entries, hidden) under a scratch directory on the host's file system (no namespaces: no private
    mount). ``hidden``: a folder in it that we may not list (made with mode 0o300, or after a umask: what it
    holds would go uncounted, and rm -rf could not remove it; docs/history.md: locked_scratch), or may not reach
    by its path (nested deeper than PATH_MAX: what lies below would go uncounted; docs/history.md: too_deep)."""
    used, entries, todo, hidden = 0, 0, [scratch], False
    while todo and entries <= max_entries:  # each sample walks them: no further
        try:
            with os.scandir(todo.pop()) as found:
                for entry in found:
                    entries += 1
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except FileNotFoundError:  # removed meanwhile
                        continue
                    except OSError:  # ENAMETOOLONG: past PATH_MAX, what it holds cannot be counted
                        hidden = True
                        continue
                    used += info.st_blocks * 512
                    if entry.is_dir(follow_symlinks=False):
                        todo.append(entry.path)
        except (FileNotFoundError, NotADirectoryError):  # removed (or replaced) meanwhile
            pass
        except OSError:  # EACCES, or ENAMETOOLONG past PATH_MAX: what it holds cannot be counted
            hidden = True
    return used, entries, hidden


PID_MAX_LIMIT = 1 << 22  # the most pids a namespace can have (include/linux/threads.h, 64-bit)
PROBE_SECONDS = 1.0  # how long a probe may take to exit (it runs one call of libc: microseconds on an idle machine)


class ProbeStopped(Exception):
    """The keeper's probe did not exit in time: the tree stopped it (SIGSTOP) to freeze the keeper's count."""


def _spawn_probe() -> int:
    """The probe: a child of the keeper that only exits (linux.libc.exiting_child), never holding the keeper."""
    return exiting_child()


def _next_pid(seconds: float = PROBE_SECONDS) -> int | None:
    """The pid the worker's PID namespace gives out next, in that namespace (None where it cannot be learnt).

    The keeper made that namespace for its children (steps.NewPidNamespace), and the worker is its first: a
    process the keeper starts now is given the next pid there, pids are given out in turn, so the difference
    between two probes is what the tree started meanwhile, threads included.

    In a user namespace the worker is root of it, as the keeper is, so it may signal the probe. A probe it stopped
    (SIGSTOP) once held the keeper in posix_spawn's vfork wait, or in its waitpid, and no sample came since (red
    team 9: 6 GiB held at a 4 GiB cap). So the probe is no exec but a clone() that exits at once, which the keeper
    does not wait for, and whose end it polls for at most ``seconds``: a probe found stopped, or still there then,
    is ProbeStopped, which ends the tree (the probe, in the tree's namespace, goes with it). The keeper cannot start a thread to wait
    instead: a process that has unshared its PID namespace may not (clone(CLONE_THREAD) is EINVAL)."""
    try:
        pid = _spawn_probe()
    except OSError:
        return None
    try:
        ids = _status(pid).get("NSpid", "").split()  # a zombie's status still shows them, until we reap it
        given = int(ids[-1]) if len(ids) > 1 else None
    except (OSError, ValueError):
        given = None
    deadline = time.monotonic() + seconds
    while True:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return given
        except ChildProcessError:  # reaped already
            return given
        except InterruptedError:
            continue
        # Stopped, it is the tree's doing (no honest process signals it): at once, not at the deadline, for a tree
        # that stopped each probe and let it go just before the deadline took 0.8 s of every second unsampled
        # (red team 10: 4.2-4.4 GiB held between two samples).
        if _status(pid).get("State", "")[:1] in ("T", "t") or time.monotonic() > deadline:
            raise ProbeStopped(pid)
        time.sleep(0.0002)


class Watchdog:
    """Where there is no group: sum the tree's memory every SAMPLE_SECONDS, SIGKILL it at the cap."""

    def __init__(self, keeper_pid: int, memory_mib: int, processes: int, worker: int | None = None, disk_mib: int = 0,
                 scratch: str | None = None, tree: bool = True,
                 starts_per_second: int = Limits.starts_per_second,
                 scratch_entries: int = Limits.scratch_entries, file_mib: int = Limits.file_mib) -> None:
        self.keeper, self.cap, self.processes = keeper_pid, memory_mib << 20, processes
        self.file_mib = file_mib  # what a deleted file that is only mapped is charged at least (_unnamed_bytes)
        # a tree that changes pid faster than it is sampled hides its memory (docs/history.md: pid_hopping)
        self.starts_per_second, self.scratch_entries = starts_per_second, scratch_entries
        self.tree = tree  # the tree's memory and processes too (False: a control group bounds them)
        self.worker, self.disk_mib = worker, disk_mib  # its root holds private mounts of disk_mib each
        self.scratch = scratch  # or its work directory is on the host's file system
        self.group = worker if scratch else None  # no PID namespace: the worker's process group holds its tree
        self.peak = 0
        self.fired = ""
        self.keeper_filters = _filters(_status("/proc/self"))  # the worker's own filter comes on top of these
        self.areas: dict[int, int] = {}  # pid -> mapping areas, as counted by the last sample
        self.reaped = 0  # processes of the tree the keeper has reaped (orphans come back to it: template._watch)
        self.depth = len(_status("/proc/self").get("NSpid", "").split())  # PID namespaces the keeper is in
        self.next_pid: int | None = None  # the pid the last probe was given in the worker's PID namespace
        self.wrapped = False  # its pids went round pid_max since the last sample
        self.probe_stopped = False  # its tree held the keeper's probe past PROBE_SECONDS (_next_pid)
        self.started: list[tuple[float, float]] = []  # (when, processes started since the sample before, per s)
        self.sampled_at: float | None = None  # when _churn last read the count

    def attach(self, worker: int) -> None:
        """The worker, once forked (the watchdog is made before it, by steps.Watch): its PID namespace is probed,
        and without namespaces its process group holds its tree."""
        self.worker = worker
        self.group = worker if self.scratch else None

    def _churn(self, worker: dict[str, str] | None) -> int:
        """Processes and threads the tree started in the last second. A process that changes pid faster than a
        sample can read it (fork, and the parent exits at once) holds memory no sample finds (docs/history.md:
        pid_hopping). Counted where it can be: in a PID namespace of the worker's own, by the pids given out
        there (_next_pid: every process and thread, however short-lived); without one, by the orphans that come
        back to the keeper, as each hop leaves one.

        Not by that namespace's ns_last_pid read through the worker's root: the kernel answers that file with the
        namespace of whoever reads it, the keeper's, and every process of the machine counted (CI of 2026-12-05).
        Nor by the newest pid the tree shows: threads, which no listing shows, used the pids up until they wrapped
        at pid_max, below what had been seen (red team 8). docs/history.md: churn_misread, wrap_zone_hop."""
        started = self.reaped
        self.reaped = 0
        if worker is not None and len(worker.get("NSpid", "").split()) > self.depth:
            try:
                given = _next_pid()
            except ProbeStopped:
                self.probe_stopped, given = True, None
            if given is not None:
                if self.next_pid is not None and given > self.next_pid:
                    started += given - self.next_pid - 1  # those between the two probes were the tree's
                elif self.next_pid is not None:  # round pid_max since the last probe: every pid there was given out
                    self.wrapped = True
                    started += PID_MAX_LIMIT
                self.next_pid = given
        now = time.monotonic()
        # A late sample (a busy machine, or a tree of many processes to read) covers more than a second: what it
        # counted is spread over the time it covers, so that 150 starts over 2 s are not read as 150 in one.
        # (Within a second of the last sample, each sample's count stands whole.)
        span = now - self.sampled_at if self.sampled_at is not None else 0.0
        self.sampled_at = now
        share = started / span if span > 1.0 else float(started)
        self.started = [(when, n) for when, n in self.started if now - when < 1.0] + [(now, share)]
        return round(sum(n for _, n in self.started))

    def check(self) -> bool:  # noqa: C901 - one sample reads the tree once and checks every bound on it
        started = time.process_time()  # the keeper's own CPU time: a busy machine does not make it grow
        tree = descendants(self.keeper)  # its memory and processes (self.tree), or its files (self.scratch)
        # Each process seen through a thread of it that holds its memory (see _view); one without any holds nothing.
        views = {pid: view for pid in tree if (view := _view(pid)) is not None}
        unread: list[int] = []
        used = 0
        slow = False
        shared: dict[bytes, int] = {}  # shared anonymous objects of the tree: inode -> bytes (see _maps)
        allowed = SLOW_SAMPLE_SECONDS + SAMPLE_SECONDS_PER_PROCESS * len(views)
        unnamed, refused = 0, list[int]()
        if self.tree:
            self.areas = {}
        batch = views
        # A process that hands its memory (or its open files) to a child and exits between the listing and the
        # read is read as nothing, and its successor was not listed: each pass lists the tree again and reads the
        # processes it had not seen, biggest first (docs/history.md: slow_hop). Three passes at most.
        for _ in range(RELIST_PASSES):
            if self.scratch:  # what the batch holds in unlinked files, while it lives
                found, denied = _unnamed_bytes({pid: where for pid, (where, _) in batch.items()}, self.scratch,
                                               self.file_mib << 20)
                unnamed, refused = unnamed + found, refused + denied
            if self.tree:
                for pid, (where, status) in sorted(batch.items(), key=lambda item: -_listed_bytes(item[1][1])):
                    if time.process_time() - started > allowed:
                        slow = True  # stop here: a sample must not itself leave seconds unwatched
                        break
                    size = _pss_bytes(where)
                    if size is None:
                        unread.append(pid)
                        continue
                    # Kernel memory no PSS shows: page tables and mapping areas (docs/history.md: page_tables).
                    # Every process at every sample: one counted in turn leaves a tree that re-forks mostly uncounted.
                    areas, objects = _maps(where) or (0, {})
                    self.areas[pid] = areas
                    for inode, reach in objects.items():
                        shared[inode] = max(shared.get(inode, 0), reach)
                    used += size + _page_table_bytes(status) + areas * AREA_BYTES
            if slow:
                break
            batch = {pid: view for pid in descendants(self.keeper)
                     if pid not in views and (view := _view(pid)) is not None}
            if not batch:
                break
            views.update(batch)
        if self.tree:
            used += sum(shared.values())
        churn = self._churn(views[self.worker][1] if self.worker in views else None)
        if self.worker and self.worker in views:
            tmpfs = _tmpfs_bytes(views[self.worker][0], self.disk_mib)
            unread += [self.worker] if tmpfs is None else []
            used += tmpfs or 0
        disk, entries, hidden = _scratch_bytes(self.scratch, self.scratch_entries) if self.scratch else (0, 0, False)
        if self.scratch:
            disk += unnamed
            unread += refused
        # Fail closed (issue 27: prctl(PR_SET_DUMPABLE, 0) made a 6 GiB tree count as 0): a process of the tree
        # that /proc will not show us, once it runs the notebook's code, ends the tree.
        # Not one that has begun to exit since it was viewed (its files are root's for a moment then).
        blind = sorted({pid for pid in unread if _confined(views[pid][1], self.keeper_filters) and _view(pid)})
        self.peak = max(self.peak, used)
        spent = time.process_time() - started
        if slow or spent > allowed:  # fail closed: a count that slow leaves seconds between two samples
            self.fired = (f"its tree makes one count of its memory take over {allowed:.2f} s of the grader's CPU "
                          f"({len(views)} processes)")
        elif self.tree and self.probe_stopped:
            self.fired = "its tree stopped the grader's probe of its PID namespace (a process that counts what it starts)"
        elif self.tree and self.wrapped:
            self.fired = "its tree used up every pid of its PID namespace (it started processes or threads until they wrapped)"
        elif self.tree and churn > self.starts_per_second:
            self.fired = f"its tree started {churn} processes or threads in a second, over {self.starts_per_second}"
        elif blind:
            self.fired = f"process {blind[0]} ({views[blind[0]][1].get('Name', '?')}) of its tree hides its memory and files from the grader"
        elif used > self.cap:
            self.fired = f"memory {used >> 20} MiB over {self.cap >> 20} MiB"
        elif self.tree and len(tree) > self.processes:
            self.fired = f"{len(tree)} processes over {self.processes}"
        elif disk > self.disk_mib << 20 or entries > self.scratch_entries:
            self.fired = f"its work directory holds {disk >> 20} MiB in {entries} entries, over {self.disk_mib} MiB"
        elif hidden:
            self.fired = "its work directory holds a folder the grader may not list (or reach: nested past PATH_MAX)"
        if self.fired:
            kill_descendants(self.keeper, self.group)
        return not self.fired


def kill_descendants(pid: int, group: int | None = None, seconds: float = 5.0) -> bool:
    """SIGKILL everything under ``pid`` and in process ``group``, until none is left (at most ``seconds``).

    Each pass stops what it finds before killing it, so that nothing forks past the kill; a process that
    forked and exited between the scan and the stop is caught by the next pass (and, without a PID namespace,
    by the group: the worker's tree cannot leave its process group, syscalls.py). Reaps what it can as it goes.
    """
    me, end = pid, time.monotonic() + seconds
    while True:
        if group:
            try:
                os.killpg(group, signal.SIGKILL)
            except OSError:
                pass
        tree = descendants(me)
        for found in tree:
            try:
                os.kill(found, signal.SIGSTOP)
            except OSError:
                pass
        for found in tree:
            try:
                os.kill(found, signal.SIGKILL)
            except OSError:
                pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        if not tree or time.monotonic() > end:
            return not tree
        time.sleep(0.005)


def _unnamed_bytes(tree: dict[int, str], scratch: str, file_bytes: int = 0) -> tuple[int, list[int]]:
    """What the tree holds in files of its scratch file system that no directory shows: open but unlinked (or
    O_TMPFILE) files, and mappings of deleted files there (docs/history.md: unnamed_files).
    ``tree``: {pid: the /proc directory it is seen through (see _view)}. A deleted file only mapped is charged at
    least ``file_bytes`` (the largest file the worker may write): its size is out of a keeper's reach without
    CAP_SYS_ADMIN (/proc/PID/map_files), and one page mapped keeps every block (docs/history.md:
    mapped_page_of_deleted). (bytes, [pids whose fd or maps /proc refused us])."""
    try:
        device = os.stat(scratch).st_dev
    except OSError:
        return 0, []
    seen: set[tuple[int, int] | tuple[str, str]] = set()
    used, refused = 0, []
    for pid, where in tree.items():
        try:
            fds = os.listdir(f"{where}/fd")
        except OSError as err:
            if err.errno in REFUSED_ERRNOS:
                refused.append(pid)
            continue
        for fd in fds:
            try:
                info = os.stat(f"{where}/fd/{fd}")
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_nlink == 0 and info.st_dev == device \
                    and (info.st_dev, info.st_ino) not in seen:
                seen.add((info.st_dev, info.st_ino))
                used += info.st_blocks * 512
        try:
            with open(f"{where}/maps") as handle:
                for line in handle:
                    fields = line.split(maxsplit=5)
                    if len(fields) == 6 and fields[5].rstrip("\n").endswith(" (deleted)") \
                            and fields[5].startswith(scratch) and (fields[3], fields[4]) not in seen:
                        seen.add((fields[3], fields[4]))
                        start, stop = (int(x, 16) for x in fields[0].split("-"))
                        used += max(stop - start, file_bytes)
        except OSError as err:
            if err.errno in REFUSED_ERRNOS:
                refused.append(pid)
    return used, refused
