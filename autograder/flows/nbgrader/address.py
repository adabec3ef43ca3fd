"""Where a course's grading service listens: a Unix socket in a folder only its user can enter.

    /tmp/autograder-<uid>/<hash of the course's real path>.sock    the service (service.py) of the default assignment
    /tmp/autograder-<uid>/<hash of the path and the assignment>.sock   ... of another assignment of the course
    /tmp/autograder-<uid>/<hash>.lock                               held by the one service of a course

The path is computed the same way by every process of the user (nbgrader on the command
line, the Jupyter server behind the formgrader, the service), so they all find one
service per course. A folder that is not ours, is a link, or that others may enter is
refused: a socket planted there could answer with grades of its own making.
"""
from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

# Not tempfile.gettempdir(): TMPDIR may differ between a shell and a Jupyter server of the same user, and
# every process of a course must find the same socket.
BASE = Path("/tmp")


class ServiceError(RuntimeError):
    """The grading service cannot be reached or refused; the message says why and what to do."""


def private_dir() -> Path:
    """The user's folder for service sockets (created 0700), checked before every use."""
    folder = BASE / f"autograder-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise ServiceError(f"{folder} is not a private folder of this user (owner uid {info.st_uid}, mode "
                           f"{stat.filemode(info.st_mode)}): remove it, then autograde again")
    return folder


def course_id(course: str | os.PathLike[str], name: str | None = None) -> str:
    """A short name for the course's real path and the assignment (socket paths are limited to 107 bytes); the
    default assignment's is the course's alone (as it was while the flow served week 7 alone)."""
    from . import default_name

    key = str(Path(course).resolve()) + ("" if name is None or name == default_name() else f"\0{name}")
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def socket_path(course: str | os.PathLike[str], name: str | None = None) -> Path:
    """Where the grading service of assignment ``name`` (default: the default one) of the course listens."""
    return private_dir() / f"{course_id(course, name)}.sock"


def lock_path(course: str | os.PathLike[str]) -> Path:
    return private_dir() / f"{course_id(course)}.lock"
