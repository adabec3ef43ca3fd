"""One submission's isolated grade, kept where students never reach: COURSE/isolated/<student>/.

(Another assignment of the course than the default one keeps its records in COURSE/isolated-<name>/<student>/:
``records_folder``; every function takes the nbgrader assignment's name, default the current assignment's.)

    submitted.ipynb   the exact bytes read from submitted/<student>/<assignment>/ (read once)
    record.json       their sha256, per-part scores and the test cells' text, every check,
                      every executed cell's output and error, when and how long, and the confinement it ran in

Written by the course's grading service (service.py) when nbgrader autogrades a
submission that has no current record; read by the kernel nbgrader starts (kernel.py) and
by crosscheck. A record is current while the submission's bytes, the grader's code and
the feedback level are those it was made with (``key``). No student code ever runs
outside the sandbox, and the sandbox hides the whole course folder, so nothing a
submission does can reach this folder. This module imports neither torch nor nbgrader
(the kernel imports it).
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...engine.output_file import write_atomic
from ...engine.submission_file import too_large
from . import ASSIGNMENT, records_folder

if TYPE_CHECKING:  # the engine's grading is not imported here (see above)
    from ...engine.grade import GradeReport
    from ...engine.plugin import TestResult

VERSION = 3  # 2: records carry the grader key they were made with; 3: and the notebook limit they were read with


class Unreadable(Exception):
    """The submission cannot be taken as the student's notebook; the message is for the student."""


def record_dir(course: str | os.PathLike[str], student: str, name: str = ASSIGNMENT) -> Path:
    return Path(course) / records_folder(name) / student


def submitted_path(course: str | os.PathLike[str], student: str, name: str = ASSIGNMENT) -> Path:
    return Path(course) / "submitted" / student / name / f"{name}.ipynb"


def read_submission(course: str | os.PathLike[str], student: str, notebook_mib: int, name: str = ASSIGNMENT) -> bytes:
    """The submitted notebook's bytes, read once, never through a symlink, at most ``notebook_mib`` MiB of them
    (Limits.notebook_mib, as every flow reads an upload); else Unreadable.

    Each component below COURSE/submitted is opened with O_NOFOLLOW, and the file must be
    a regular file: a link to a classmate's notebook, the reference or a device is refused.
    """
    limit = notebook_mib << 20
    flags = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    names = (student, name, f"{name}.ipynb")
    fds = [os.open(Path(course) / "submitted", os.O_RDONLY | os.O_DIRECTORY)]
    try:
        for depth, entry in enumerate(names):
            last = depth == len(names) - 1
            try:
                fd = os.open(entry, flags | (0 if last else os.O_DIRECTORY), dir_fd=fds[-1])
            except OSError as err:
                raise Unreadable(f"{'/'.join(names[:depth + 1])} is not a {'file' if last else 'folder'} "
                                 f"that can be read ({err.strerror}); symbolic links are refused") from err
            fds.append(fd)
        info = os.fstat(fds[-1])
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable(f"{name}.ipynb is not a regular file")
        if info.st_size > limit:
            raise Unreadable(too_large(f"{name}.ipynb", info.st_size, notebook_mib))
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(fds[-1], 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise Unreadable(too_large(f"{name}.ipynb", size, notebook_mib))
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        for fd in reversed(fds):
            os.close(fd)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def keep_copy(course: str | os.PathLike[str], student: str, data: bytes, name: str = ASSIGNMENT) -> Path:
    """Write the bytes to COURSE/isolated/<student>/submitted.ipynb (owner-only); return the path."""
    folder = record_dir(course, student, name)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder.parent, 0o700)
    os.chmod(folder, 0o700)
    for name in ("record.json", "submitted.ipynb"):  # a stale record never outlives a new copy
        (folder / name).unlink(missing_ok=True)
    path = folder / "submitted.ipynb"
    write_atomic(path, data, mode=0o600)
    return path


def write_record(course: str | os.PathLike[str], student: str, record: Mapping[str, Any],
                 name: str = ASSIGNMENT) -> None:
    write_atomic(record_dir(course, student, name) / "record.json", json.dumps(record, indent=1), mode=0o600)


def load_record(course: str | os.PathLike[str], student: str, name: str = ASSIGNMENT) -> dict[str, Any] | None:
    """The record of a student, or None when there is none (or it cannot be read, or is another assignment's)."""
    try:
        with open(record_dir(course, student, name) / "record.json") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("version") != VERSION or record.get("student") != student \
            or record.get("assignment") != name:
        return None
    return record


def is_current(record: Mapping[str, Any] | None, digest: str | None, key: str) -> bool:
    """True when ``record`` is the grade of the bytes hashed ``digest`` by the grader (and level) of ``key``."""
    return (record is not None and digest is not None and record.get("sha256") == digest
            and record.get("key") == key)


def sendable(text: object) -> str:
    """``text`` as JSON and the kernel protocol carry it: lone surrogates (a cell's `print("\\ud800")`) as
    backslash escapes. Raw, one made jupyter_client's packer raise in the kernel, no reply went out, and nbgrader
    waited out its 60 s timeout for each such cell, for the whole class behind it (red team of issue 23)."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")


def _sendable_values(value: object) -> object:
    if isinstance(value, str):
        return sendable(value)
    if isinstance(value, dict):
        return {sendable(k): _sendable_values(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_sendable_values(v) for v in value]
    return value


def part_text(part: str, score: float, top: float, results: Iterable[TestResult], level: str,
              problem: str = "") -> str:
    """What a test cell shows: the part's points, then each check as feedback ``level`` allows."""
    lines = [f"Part {part}: {score:g} / {top:g}"]
    if problem:
        lines.append(f"  {problem}")
    if level != "score":
        for r in results:
            mark = "ok  " if r.status == "passed" else "FAIL"  # Status is a StrEnum: no engine import here
            detail = r.feedback(level)
            lines.append(f"  {mark} {r.title} ({r.score:g}/{r.points:g})" + (f": {detail}" if detail else ""))
    return sendable("\n".join(lines) + "\n")


def build_record(student: str, digest: str | None, report: GradeReport, cells: Sequence[str], level: str,
                 started: float, key: str, notebook_mib: int, name: str = ASSIGNMENT,
                 confinement: str = "") -> dict[str, Any]:
    """The record.json dict of one graded submission (``report``: the engine's GradeReport; ``key``: the
    grader's code and options it was graded with; ``notebook_mib``: the limit it was read with, which the
    kernel reads the submission with again to see it is still what was graded; ``confinement``: the sandbox's
    one line, as results.json and grades.log carry it)."""
    parts = report.by_part()
    by_part: dict[str, list[TestResult]] = {}
    for r in report.results:
        by_part.setdefault(r.part, []).append(r)
    executed = {c.index: c for c in report.executed}
    return {
        "version": VERSION, "student": student, "assignment": name, "sha256": digest, "key": key,
        "notebook_mib": notebook_mib, "confinement": confinement,
        "graded_at": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "seconds": round(time.time() - started, 3), "feedback": level, "problem": report.problem,
        "score": report.score, "max_score": report.max_score,
        "parts": {p: {"score": s, "max": m, "text": part_text(p, s, m, by_part.get(p, []), level, report.problem)}
                  for p, (s, m) in parts.items()},
        "results": [r.to_dict() for r in report.results],  # TestResult.from_dict reads them back
        # Every code cell as the sandbox saw it; those that ran carry their output and error.
        "cells": [dict({"index": i, "source": source},
                       **({"ran": True, "output": _sendable_values(executed[i].output),
                           "error": _sendable_values(executed[i].error),
                           "fatal": _sendable_values(executed[i].fatal)} if i in executed else {"ran": False}))
                  for i, source in enumerate(cells) if source],
    }
