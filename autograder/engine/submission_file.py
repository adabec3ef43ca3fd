"""The one way every flow opens a submitted notebook: a regular file, within the size limit.

``grade``, ``grade-all`` and the Gradescope autograder read an upload only through
``read_notebook``: opened without following a symbolic link (O_NOFOLLOW), without
blocking on a FIFO (O_NONBLOCK), checked to be a regular file on the open descriptor
(so a swap after the check changes nothing), and read up to the limit. Whatever is
refused gets the same message in every flow, for the student:

    week7_attention.ipynb is a symbolic link, not a regular file; upload the notebook file itself
    your notebook week7_attention.ipynb is 40.2 MiB; the limit is 32 MiB ...

A notebook over the limit is the student's failure (score 0 with that message), never a
grader fault. The limit is the settings' ``Limits.notebook_mib`` (autograder/settings.py), which every
caller passes: no flow reads a notebook without it.
"""
import errno
import math
import os
import stat
from enum import StrEnum
from pathlib import Path


class SubmissionStatus(StrEnum):
    """A submission's status in grades.csv and the batch's records. A StrEnum: written as its value,
    and equal to it, so rows read back from a CSV compare with the members directly."""
    GRADED = "graded"  # every part graded
    INCOMPLETE = "incomplete"  # the worker broke (time budget, crashes): the points are partial
    GRADER_ERROR = "grader-error"  # ours, never the student's; retried on the next run
    NOT_A_NOTEBOOK = "not-a-notebook"  # the file is no notebook we will read (a link, invalid JSON, ...)
    TOO_LARGE = "too-large"  # over Limits.notebook_mib
    NO_NOTEBOOK = "no-notebook"  # the submission holds no .ipynb
    SEVERAL_NOTEBOOKS = "several-notebooks"  # and none of them is named like the assignment

    @property
    def gradable(self) -> bool:
        """Whether a notebook was there to grade (a zero without one says nothing about any part)."""
        return self not in UNGRADABLE


UNGRADABLE = frozenset({SubmissionStatus.NOT_A_NOTEBOOK, SubmissionStatus.TOO_LARGE,
                        SubmissionStatus.NO_NOTEBOOK, SubmissionStatus.SEVERAL_NOTEBOOKS})
# What is refused here, by its status.
NOT_A_NOTEBOOK, TOO_LARGE, MISSING = (SubmissionStatus.NOT_A_NOTEBOOK, SubmissionStatus.TOO_LARGE,
                                      SubmissionStatus.NO_NOTEBOOK)


class SubmissionFileError(Exception):
    """The upload is not a notebook file we will read; ``str()`` is for the student, ``kind`` a status."""

    def __init__(self, message: str, kind: str = NOT_A_NOTEBOOK) -> None:
        super().__init__(message)
        self.kind = kind


def _what(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def refusal(name: str, mode: int) -> str:
    """The message for an upload that is not a regular file (``mode`` from lstat)."""
    what = _what(mode)
    if what == "not a regular file":
        return f"{name} is not a regular file; upload the notebook file itself"
    return f"{name} is {what}, not a regular file; upload the notebook file itself"


def too_large(name: str, size: int, limit_mib: int) -> str:
    mib = math.ceil(size / (1 << 20) * 10) / 10  # rounded up: never "32.0 MiB; the limit is 32 MiB"
    return (f"your notebook {name} is {mib:.1f} MiB; the limit is {limit_mib:g} MiB. Clear its outputs "
            f"and remove large data from its cells, then submit it again")


def check(path: str | os.PathLike[str], limit_mib: int) -> os.stat_result:
    """Raise SubmissionFileError if ``path`` (not followed) is not a regular file within ``limit_mib`` MiB.

    For finding submissions without reading them; ``read_notebook`` checks again on what it opens.
    """
    path, limit = Path(path), limit_mib << 20
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise SubmissionFileError(f"{path.name} does not exist", MISSING) from None
    except OSError as err:
        raise SubmissionFileError(f"{path.name} could not be read ({err.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise SubmissionFileError(refusal(path.name, st.st_mode))
    if st.st_size > limit:
        raise SubmissionFileError(too_large(path.name, st.st_size, limit_mib), TOO_LARGE)
    return st


def read_notebook(path: str | os.PathLike[str], limit_mib: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit_mib`` MiB of them; else SubmissionFileError."""
    path, limit = Path(path), limit_mib << 20
    check(path, limit_mib)  # no open() at all for a device, a FIFO or a link
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise SubmissionFileError(refusal(path.name, stat.S_IFLNK)) from None
        if err.errno == errno.ENOENT:
            raise SubmissionFileError(f"{path.name} does not exist", MISSING) from None
        raise SubmissionFileError(f"{path.name} could not be read ({err.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped since the check
            raise SubmissionFileError(refusal(path.name, st.st_mode))
        if st.st_size > limit:
            raise SubmissionFileError(too_large(path.name, st.st_size, limit_mib), TOO_LARGE)
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # grew while read
                raise SubmissionFileError(too_large(path.name, max(total, os.fstat(fd).st_size), limit_mib),
                                          TOO_LARGE)
        return b"".join(chunks)
    except OSError as err:
        raise SubmissionFileError(f"{path.name} could not be read ({err.strerror})") from None
    finally:
        os.close(fd)


def is_notebook_name(name: str) -> bool:
    return name.lower().endswith(".ipynb")
