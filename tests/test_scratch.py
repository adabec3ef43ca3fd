"""A worker's scratch directory where there are no namespaces (modes landlock and none; autograder/sandbox/steps.py).

A keeper killed outright runs no clean-up; the next keeper removes what it left, and nothing else: not a
directory a living keeper holds, not one made a moment ago, not a symlink or what it points to, not another
user's. (A grade killed by SIGKILL at 09:55 left 1,500 nested folders in /tmp that failed a later CI run.)
"""
import fcntl
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from autograder.sandbox import steps
from autograder.sandbox.config import WorkerConfig

OLD = time.time() - 10 * steps.STALE_AFTER


def scratch(parent, name, *, age=OLD, depth=3):
    path = parent / f"{steps.SCRATCH_PREFIX}{name}"
    path.mkdir()
    fd = os.open(path, os.O_RDONLY)
    for _ in range(depth):  # through file descriptors: a path 1,500 folders deep is longer than PATH_MAX
        os.mkdir("d", dir_fd=fd)
        fd, old = os.open("d", os.O_RDONLY, dir_fd=fd), fd
        os.close(old)
    os.close(os.open("weights.pt", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    os.close(fd)
    os.utime(path, (age, age))
    return path


def test_a_dead_keepers_directory_is_swept_whatever_its_depth(tmp_path):
    dead = scratch(tmp_path, "dead", depth=1500)
    assert steps.sweep(str(tmp_path)) == [str(dead)]
    assert not dead.exists()


def test_a_living_keepers_directory_is_kept(tmp_path):
    held = scratch(tmp_path, "held")
    # the lock is held by another process, as a keeper's is
    keeper = subprocess.Popen([sys.executable, "-c", "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); "
                               "fcntl.flock(fd, fcntl.LOCK_EX); print(flush=True); sys.stdin.read()", str(held)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        keeper.stdout.readline()
        assert steps.sweep(str(tmp_path)) == [] and held.exists()
    finally:
        keeper.communicate("")
    assert steps.sweep(str(tmp_path)) == [str(held)]  # its keeper is gone now


def test_a_new_directory_a_symlink_and_other_names_are_kept(tmp_path):
    new = scratch(tmp_path, "new", age=time.time())
    target = scratch(tmp_path, "target-of-link")
    os.rename(target, tmp_path / "elsewhere")
    (tmp_path / f"{steps.SCRATCH_PREFIX}link").symlink_to(tmp_path / "elsewhere")
    other = tmp_path / "notebooks"
    other.mkdir()
    os.utime(other, (OLD, OLD))
    assert steps.sweep(str(tmp_path)) == []
    assert new.exists() and (tmp_path / "elsewhere" / "d" / "d" / "d" / "weights.pt").exists() and other.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a directory to another user")
def test_another_users_directory_is_kept_and_a_workers_is_swept(tmp_path):
    someone = scratch(tmp_path, "someone")
    worker = scratch(tmp_path, "worker")
    os.chown(someone, 1234, 1234)
    os.chown(worker, steps.identity.UID_BASE + 77, steps.identity.UID_BASE + 77)
    assert steps.sweep(str(tmp_path)) == [str(worker)] and someone.exists()


def test_the_step_holds_its_lock_until_undone(tmp_path):
    ctx = steps.Context(WorkerConfig(scratch_parent=str(tmp_path), own_uid=False), keeper=os.getpid())
    stale = scratch(tmp_path, "stale")
    steps.Scratch().run(ctx)
    work = ctx.work
    assert not stale.exists() and os.path.isdir(work)
    os.utime(work, (OLD, OLD))  # old, yet held: a sweep from another process leaves it
    probe = [sys.executable, "-c", "from autograder.sandbox import steps; import sys; print(steps.sweep(sys.argv[1]))",
             str(tmp_path)]
    assert subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip() == "[]"
    fd = os.open(work, os.O_RDONLY)
    try:
        with pytest.raises(BlockingIOError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)
    steps.Scratch().undo(ctx)
    assert not os.path.exists(work) and ctx.keeper_fds == []


def _locked_tree(top):
    """Folders their owner made unwritable or unlistable around its files (hostile locked_scratch makes them)."""
    for name, mode in (("ro", 0o500), ("none", 0o000), ("wx", 0o300)):
        inner = top / name / "inner"
        inner.mkdir(parents=True)
        (inner / "kept.bin").write_bytes(b"z" * 4096)
        os.chmod(inner, mode)
        os.chmod(top / name, mode)
    os.symlink("/etc", top / "elsewhere")  # never followed: /etc keeps its modes
    os.chmod(top, 0o500)


def test_folders_made_unwritable_are_removed_by_their_owner():
    """rm -rf alone cannot unlink a file in a folder its owner made unwritable or unreadable (where the worker has
    the grader's uid, as in a Kubernetes pod); remove_tree opens them up first, and follows no symlink doing so."""
    etc_mode = os.stat("/etc").st_mode

    def job(parent):
        top = parent / f"{steps.SCRATCH_PREFIX}locked"
        top.mkdir()
        _locked_tree(top)
        subprocess.run(["rm", "-rf", str(top)], stderr=subprocess.DEVNULL)
        said = "rm alone left it" if top.exists() else "rm alone removed it"
        steps.remove_tree(str(top))
        return f"{said}|{'left' if top.exists() else 'gone'}"

    assert _as_user(job) == "rm alone left it|gone"
    assert os.stat("/etc").st_mode == etc_mode


def _as_user(job) -> str:
    """``job(folder)`` in a child as uid 65534 (where we are root), in a folder it owns; what it returns, as text
    (or ``error ...`` if it raised). Nothing it started outlives it. tests/test_watchdog.py uses it too."""
    from autograder.sandbox.keeper import budget

    parent = Path(tempfile.mkdtemp(prefix="week7-scratch-test-", dir="/tmp"))  # a user can reach it, unlike tmp_path
    report_r, report_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(report_r)
            if os.geteuid() == 0:
                os.chown(parent, 65534, 65534)
                os.setresgid(65534, 65534, 65534)
                os.setresuid(65534, 65534, 65534)
            try:
                said = str(job(parent))
            except BaseException as err:  # noqa: BLE001 - the test reads it
                said = f"error {err!r}"
            budget.kill_descendants(os.getpid())
            os.write(report_w, said.encode())
            code = 0
        finally:
            os._exit(code)
    os.close(report_w)
    with os.fdopen(report_r) as report:
        said = report.read()
    os.waitpid(pid, 0)
    steps.remove_tree(str(parent))
    return said


def test_a_folder_the_watchdog_may_not_list_is_seen():
    """A folder made 0o300 (or through a umask) hides what it holds from a walk of the scratch directory: the
    watchdog must say so (it kills the tree), not count nothing there (red team of stop 26)."""
    from autograder.sandbox.keeper import budget

    def job(parent):
        top = parent / f"{steps.SCRATCH_PREFIX}hidden"
        top.mkdir()
        open_before = budget._scratch_bytes(str(top), 20_000)
        os.mkdir(top / "h", 0o300)
        (top / "h" / "big").write_bytes(b"z" * (1 << 20))
        return f"{open_before[2]}|{budget._scratch_bytes(str(top), 20_000)[2]}"

    assert _as_user(job) == "False|True"


def test_a_folder_past_path_max_is_seen():
    """Folders nested deeper than PATH_MAX cannot be reached by their path: a walk by path would count nothing
    below them (files written there went past the disk cap unseen). The watchdog must say so, as for a folder it
    may not list. On the old walk, ENAMETOOLONG was taken for a folder removed meanwhile."""
    from autograder.sandbox.keeper import budget

    def job(parent):
        top = parent / f"{steps.SCRATCH_PREFIX}deep"
        top.mkdir()
        fd = os.open(top, os.O_RDONLY)
        for _ in range(2200):  # "d/" x 2,200: longer than PATH_MAX (4,096) below the top
            os.mkdir("d", dir_fd=fd)
            fd, old = os.open("d", os.O_RDONLY, dir_fd=fd), fd
            os.close(old)
        shallow = budget._scratch_bytes(str(top), 20_000)
        os.close(os.open("big", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
        os.close(fd)
        return f"{shallow[2]}"

    assert _as_user(job) == "True"
