"""The one way every output file is written: whole or not at all, and a failure said in one line.

A crash, a kill or a full disk in the middle of a write leaves the earlier file as it was
(the data goes to a temporary file in the same folder, is synced, then renamed over it),
and no temporary file behind. When the write fails, ``OutputError`` names the path and
the cause; the commands print its text as their last line and exit ``EXIT_OUTPUT``.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

EXIT_OUTPUT = 4  # an output could not be written (full disk, I/O error, permissions): the earlier file is kept


class OutputError(OSError):
    """An output could not be written; ``str()`` is the line for the user: ``cannot write PATH: CAUSE``."""

    def __init__(self, path: str | os.PathLike[str], cause: OSError) -> None:
        super().__init__(cause.errno, cause.strerror, str(path))
        self.path, self.cause = Path(path), cause

    def __str__(self) -> str:
        return f"cannot write {self.path}: {self.cause.strerror or self.cause}"


def write_atomic(path: str | os.PathLike[str], data: str | bytes, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` (str as UTF-8) in one step; OutputError if it cannot be written."""
    path = Path(path)
    try:
        if stat.S_ISCHR(os.stat(path).st_mode) or stat.S_ISFIFO(os.stat(path).st_mode):
            # A device or a pipe (--out /dev/stdout, a second /dev/null) is written into, never replaced.
            with open(path, "wb") as handle:
                handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            return
    except FileNotFoundError:
        pass
    except OSError as err:
        raise OutputError(path, err) from err
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                     mode)
        try:
            view = memoryview(data.encode("utf-8") if isinstance(data, str) else data)
            while view:  # os.write may write less than asked (a full disk raises on the next call)
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        fsync_dir(path.parent)
    except OSError as err:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise err if isinstance(err, OutputError) else OutputError(path, err) from err


def fsync_dir(folder: str | os.PathLike[str]) -> None:
    """Make a rename in ``folder`` durable (a crash after it cannot bring the old file back)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def said(command: str, err: OSError) -> str:
    """The one line a command prints for an I/O error: ``COMMAND: cannot write PATH: CAUSE`` (or the error's own)."""
    if isinstance(err, OutputError):
        return f"{command}: {err}"
    where = f" on {err.filename}" if err.filename else ""
    return f"{command}: I/O error{where}: {err.strerror or err}"
