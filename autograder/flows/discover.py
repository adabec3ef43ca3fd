"""Finding a class's submissions in a folder: one notebook per student, or a row saying why there is none.

Shared by grade-all, the written answers and the LMS export (no flow imports another for it).
"""
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

from ..engine import submission_file
from ..engine.submission_file import SubmissionStatus as Row
from . import batch_summary as out


class Submission:
    def __init__(self, student: str, notebook: Path | None = None, status: str = "", detail: str = "") -> None:
        self.student, self.notebook, self.status, self.detail = student, notebook, status, detail
        self.sha256 = ""


def discover(folder: str | os.PathLike[str], assignment: str, notebook_mib: int,
             skip: Iterable[str | os.PathLike[str]] = ()) -> list[Submission]:
    """Submissions under ``folder``, sorted by student id; unusable ones carry a status.

    Nothing is followed or opened here: a symbolic link, a FIFO, a device or a directory
    named like a notebook becomes a row with the message every flow gives
    (engine/submission_file.py), so is a notebook over ``notebook_mib`` (Limits.notebook_mib).
    """
    folder = Path(folder)
    if (folder / "submitted").is_dir():
        folder = folder / "submitted"
    skip = {Path(s).resolve() for s in skip}
    found: list[Submission] = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith((".", "_")):
            continue
        try:
            if entry.resolve() in skip:
                continue
            mode = os.lstat(entry).st_mode
        except (OSError, RuntimeError):  # gone while we looked; a symbolic link loop (refused below)
            mode = stat.S_IFLNK
        notebook_name = submission_file.is_notebook_name(entry.name)
        if stat.S_ISDIR(mode) and not notebook_name:
            try:
                sub = _from_folder(entry, assignment, notebook_mib)
            except OSError as err:
                sub = Submission(entry.name, None, Row.NO_NOTEBOOK, f"the folder could not be read ({err.strerror})")
        elif notebook_name or stat.S_ISLNK(mode):
            sub = _from_file(student_of_file(entry.name) if notebook_name else entry.name, entry, notebook_mib)
        else:
            continue  # a README or a roster beside the submissions
        found.append(sub)
    return _distinct(found)


def _distinct(found: list[Submission]) -> list[Submission]:
    """Give every submission its own student id, as the CSV will write it (out.student_key).

    Two files can name one student (alice.ipynb and a Canvas download of alice's), and two
    names can look alike once escaped for the CSV (a tab and a written-out "\\x09"). The
    first keeps the name; each later one gets the first free "~n" suffix, free among every
    name found (an "alice~2.ipynb" keeps its own name), so no row overwrites another.
    """
    taken = {out.student_key(sub.student) for sub in found}
    used: set[str] = set()
    for sub in found:
        key, n, name = out.student_key(sub.student), 1, sub.student
        if key in used:
            while True:
                n += 1
                candidate = f"{name}~{n}"
                if out.student_key(candidate) not in taken | used:
                    break
            sub.student, key = candidate, out.student_key(candidate)
        used.add(key)
    return found


# Canvas "Download Submissions" names each file <lastfirst>[_late]_<user id>_<submission id>_<uploaded name>
# (the user id is Canvas's own "ID" column of the gradebook export). A leading late_ is accepted too.
CANVAS_UPLOAD = re.compile(r"^(?:late_)?(?P<student>[^_]+?)_(?:late_)?(?P<user_id>\d+)_(?P<submission_id>\d+)_"
                           r"(?P<file>.+)$", re.IGNORECASE)


def canvas_upload(filename: str) -> tuple[str, str] | None:
    """(student, Canvas user id) of a Canvas bulk-download file name, or None for any other name.

    ``smithjane_12345_678901_week7_attention.ipynb`` and ``smithjane_late_12345_…`` give
    ("smithjane", "12345"): the student is the lastfirst part (what grade-all reports and the
    roster's ``student`` column names); the user id lets lms.py match the roster's ``lms_id``.
    """
    found = CANVAS_UPLOAD.match(filename)
    if not found or not submission_file.is_notebook_name(filename):
        return None
    return found.group("student"), found.group("user_id")


def student_of_file(filename: str) -> str:
    """The student a notebook file at the top of the folder belongs to: its stem, or a Canvas upload's lastfirst."""
    canvas = canvas_upload(filename)
    return canvas[0] if canvas else Path(filename).stem


def _from_file(student: str, path: Path, notebook_mib: int) -> Submission:
    try:
        submission_file.check(path, notebook_mib)
    except submission_file.SubmissionFileError as err:
        return Submission(student, None, err.kind, str(err))
    return Submission(student, path)


def _from_folder(folder: Path, assignment: str, notebook_mib: int) -> Submission:
    notebooks = _notebooks(folder)
    if not notebooks:
        subfolders = [d for d in sorted(folder.iterdir()) if d.is_dir() and not d.is_symlink()
                      and not d.name.startswith(".") and not submission_file.is_notebook_name(d.name)]
        preferred = [d for d in subfolders if d.name == assignment]
        for sub in preferred or subfolders:
            notebooks += _notebooks(sub)
    if not notebooks:
        return Submission(folder.name, None, Row.NO_NOTEBOOK, "no .ipynb file in the submission")
    if len(notebooks) > 1:
        names = ", ".join(str(n.relative_to(folder)) for n in notebooks)
        return Submission(folder.name, None, Row.SEVERAL_NOTEBOOKS,
                          f"several notebooks ({names}); submit exactly one")
    return _from_file(folder.name, notebooks[0], notebook_mib)


def _notebooks(folder: Path) -> list[Path]:
    """Entries named like a notebook, whatever they are (each is checked before it is read)."""
    return [f for f in sorted(folder.iterdir()) if submission_file.is_notebook_name(f.name)
            and not f.name.startswith(".")]
