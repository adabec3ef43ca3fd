"""`grade-all … --roster roster.csv --lms canvas|moodle`: the class's totals in an LMS gradebook import file.

The roster is a CSV with the columns ``student,name,email,lms_id``; ``student`` is the
submission's name as grade-all reports it (the ``student`` column of grades.csv; for a
Canvas bulk download, the ``lastfirst`` part of the file name). A grades row matches the
roster entry with the same ``student``; failing that, a Canvas upload (its user id is in the
file name, kept in the ``notebook`` column) matches the entry whose ``lms_id`` is that id.
Nothing is dropped silently: submissions that match no roster entry and roster students
with no submission are printed and listed in ``<stem>_roster_check.csv``.

Canvas (``<stem>_canvas.csv``), the layout of Canvas's own gradebook export, which its
import reads back ("Student, ID, SIS User ID, SIS Login ID, Section", then one column per
assignment named "Assignment name (assignment id)"; a column without an id creates a new
assignment; the second row "Points Possible" as in the export):
    https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/calculating-final-grades/import-csv-file-carmen-grades
    https://nemogb-dev.github.io/nemogb-r/articles/detailed-canvas-export-info.html
Canvas identifies a student by ``ID`` (the Canvas user id: the roster's ``lms_id``); SIS
columns are left empty. An empty score leaves the grade in Canvas as it is.

Moodle (``<stem>_moodle.csv``), for "Import grades > CSV file": any header; at import the
instructor maps "Email address" to ``useremail`` (or "ID number", the roster's ``lms_id``,
to ``useridnumber``) and the grade column to the grade item:
    https://docs.moodle.org/311/en/Grade_import
Moodle aborts the whole import at a row whose user it cannot find, and an empty grade
cell clears the grade (grade/import/csv/classes/load_data.php, prepare_import_grade_data
and update_grade_item): so only roster students are written, and with ``--lms-missing
empty`` (the default) roster students with no submission are left out of the Moodle file,
but get an empty cell in the Canvas file (no change there); ``--lms-missing zero`` gives
them 0 in both.
"""
import csv
import io
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..engine.safe_text import csv_cell
from .batch_summary import student_key, write_atomic
from .records import ClassRow, cell as _cell

Entry = dict[str, str]  # a roster line: {student, name, email, lms_id}
Pair = tuple[Entry, ClassRow]

ROSTER_COLUMNS = ("student", "name", "email", "lms_id")
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_POINTS_ROW = "    Points Possible"  # as Canvas's own export writes it (leading spaces included)
MOODLE_COLUMNS = ("Full name", "Email address", "ID number")


class RosterError(Exception):
    """The roster cannot be used (missing, unreadable, wrong columns, a student twice)."""


def read_roster(path: str | Path | None) -> list[Entry]:
    if not path:
        raise RosterError("--lms needs --roster roster.csv (columns student,name,email,lms_id)")
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            header = [(h or "").strip().lower() for h in reader.fieldnames or []]
            missing = [c for c in ROSTER_COLUMNS if c not in header]
            if missing:
                raise RosterError(f"{path}: the roster has no {', '.join(missing)} column "
                                  f"(expected {','.join(ROSTER_COLUMNS)})")
            reader.fieldnames = header
            entries = [{c: (row.get(c) or "").strip() for c in ROSTER_COLUMNS} for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as err:
        raise RosterError(f"{path}: the roster could not be read ({err})") from err
    entries = [e for e in entries if any(e.values())]
    seen: dict[str, Entry] = {}
    for e in entries:
        if not e["student"]:
            raise RosterError(f"{path}: a roster entry has no student ({e['name'] or e['email'] or e['lms_id']})")
        key = student_key(e["student"])
        if key in seen:
            raise RosterError(f"{path}: the student {csv_cell(e['student'])} is in the roster twice")
        seen[key] = e
    return entries


def canvas_user_id(row: ClassRow) -> str | None:
    """The Canvas user id in a row's notebook file name (a Canvas bulk download), or None.

    Only a file at the top of the submissions folder, named by Canvas for this very student
    (its lastfirst part is the row's student, "~n" suffixes aside). A file inside a student's
    own folder is named by the student: bob's "alice_999_1_week7_attention.ipynb" must not
    hand bob's grade to alice (red team, round 2).
    """
    from .discover import canvas_upload

    notebook = row.notebook
    if "/" in notebook or "\\" in notebook:
        return None
    found = canvas_upload(notebook)
    student = row.student
    if not found or student.split("~")[0] != found[0]:
        return None
    return found[1]


def match(rows: list[ClassRow], roster: list[dict[str, str]]) -> tuple[list[Pair], list[ClassRow], list[Entry]]:
    """([(entry, row)] in roster order, rows matching no entry, entries with no row)."""
    by_student = {student_key(r.student): r for r in rows}
    by_user_id: dict[str, list[ClassRow]] = {}
    for r in rows:
        uid = canvas_user_id(r)
        if uid:
            by_user_id.setdefault(uid, []).append(r)
    used, pairs, missing = set[int](), list[Pair](), list[Entry]()
    for entry in roster:
        row = by_student.get(student_key(entry["student"]))
        if row is None and entry["lms_id"] and len(by_user_id.get(entry["lms_id"], [])) == 1:
            row = by_user_id[entry["lms_id"]][0]
        if row is None or id(row) in used:
            missing.append(entry)
        else:
            used.add(id(row))
            pairs.append((entry, row))
    unmatched = [r for r in rows if id(r) not in used]
    return pairs, unmatched, missing


def _score(row: ClassRow | None, missing_score: str) -> str | int:
    if row is None:
        return 0 if missing_score == "zero" else ""
    if row.total is None:  # the grader failed on this one: nothing is exported, never a 0
        return ""
    return _cell(float(row.total))


def canvas_csv(pairs: Sequence[Pair], missing: Sequence[Entry], assignment: str, points: float,
               missing_score: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*CANVAS_COLUMNS, csv_cell(assignment)])
    writer.writerow([CANVAS_POINTS_ROW, "", "", "", "", _cell(float(points))])
    entries = [(e, r) for e, r in pairs] + [(e, None) for e in missing]
    for entry, row in sorted(entries, key=lambda p: p[0]["name"].lower() or p[0]["student"].lower()):
        writer.writerow([csv_cell(entry["name"] or entry["student"]), csv_cell(entry["lms_id"]), "", "", "",
                         _score(row, missing_score)])
    return out.getvalue()


def moodle_csv(pairs: Sequence[Pair], missing: Sequence[Entry], assignment: str, missing_score: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*MOODLE_COLUMNS, csv_cell(assignment)])
    entries: list[tuple[Entry, ClassRow | None]] = [(e, r) for e, r in pairs]
    if missing_score == "zero":
        entries += [(e, None) for e in missing]
    for entry, row in sorted(entries, key=lambda p: p[0]["name"].lower() or p[0]["student"].lower()):
        writer.writerow([csv_cell(entry["name"] or entry["student"]), csv_cell(entry["email"]),
                         csv_cell(entry["lms_id"]), _score(row, missing_score)])
    return out.getvalue()


def check_csv(unmatched: Sequence[ClassRow], missing: Sequence[Entry]) -> str:
    """``<stem>_roster_check.csv``: one line per submission without a roster entry and per student without a submission."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["problem", "student", "name", "email", "lms_id", "status", "total", "notebook"])
    for r in unmatched:
        writer.writerow(["no roster entry", csv_cell(r.student), "", "", csv_cell(canvas_user_id(r) or ""),
                         csv_cell(r.status), _cell(r.total), csv_cell(r.notebook)])
    for e in missing:
        writer.writerow(["no submission", *(csv_cell(e[c]) for c in ROSTER_COLUMNS), "", "", ""])
    return out.getvalue()


def export(rows: list[ClassRow], roster_path: str | Path | None, systems: Iterable[str], csv_path: str | Path,
           assignment: str, missing_score: str, points: float = 100.0) -> list[str]:
    """Write the LMS files and the roster check beside ``csv_path``; return the lines to print."""
    roster = read_roster(roster_path)
    pairs, unmatched, missing = match(rows, roster)
    stem = Path(csv_path).with_suffix("")
    lines = []
    for system in dict.fromkeys(systems):
        path = Path(f"{stem}_{system}.csv")
        if system == "canvas":
            write_atomic(path, canvas_csv(pairs, missing, assignment, points, missing_score))
        else:
            write_atomic(path, moodle_csv(pairs, missing, assignment, missing_score))
        lines.append(f"wrote {path} ({len(pairs)} graded roster students"
                     + (f", {len(missing)} without a submission" if missing and (system == 'canvas'
                        or missing_score == "zero") else "") + ")")
    check = Path(f"{stem}_roster_check.csv")
    write_atomic(check, check_csv(unmatched, missing))
    if unmatched:
        lines.append(f"{len(unmatched)} submission(s) match no roster entry (not in the LMS file): "
                     + ", ".join(csv_cell(r.student) for r in unmatched))
    if missing:
        lines.append(f"{len(missing)} roster student(s) have no submission ("
                     + ("0" if missing_score == "zero" else "left empty") + "): "
                     + ", ".join(csv_cell(e["student"]) for e in missing))
    lines.append(f"roster check: {check}")
    return lines

