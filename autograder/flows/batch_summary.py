"""What `grade-all` writes besides per-student feedback: the CSV (and merging into one), the summary."""
import csv
import io
import json
import statistics
from pathlib import Path
from typing import Any

# The flows' writer, named here too (`as`: an explicit re-export, for mypy --strict).
from ..engine.output_file import fsync_dir as fsync_dir, write_atomic as write_atomic
from ..engine.safe_text import csv_cell
from ..engine.submission_file import SubmissionStatus as Row
from .records import ClassRow, columns


def write_csv(rows: list[ClassRow], path: Path) -> None:
    buffer = io.StringIO()
    fields = columns(rows)
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row.cells(fields))
    write_atomic(path, buffer.getvalue())


def read_csv(path: Path) -> list[ClassRow]:
    """The rows of a grades CSV this module wrote (ClassRow.from_cells).

    Raises ValueError when the file is not one (no ``student``, ``total`` or ``status`` column).
    """
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = {"student", "total", "status"} - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"no {', '.join(sorted(missing))} column")
        return [ClassRow.from_cells(raw) for raw in reader]


def student_key(name: str) -> str:
    """A student as the CSV shows them: rows read back from a CSV and rows of this run compare equal."""
    return csv_cell(name)


def merge(previous: list[ClassRow], current: list[ClassRow]) -> tuple[list[ClassRow], dict[str, int]]:
    """``previous`` rows (read from the CSV) with ``current`` ones added or put in their place; sorted by student.

    Returns (rows, counts): ``updated`` were in both, ``changed`` of those differ in total,
    status, a part or the notebook's sha256, ``added`` are new, ``kept`` were only in ``previous``.
    """
    now = {student_key(r.student): r for r in current}
    merged, counts = [], {"updated": 0, "changed": 0, "added": 0, "kept": 0}
    for old in previous:
        key = student_key(old.student)
        if key in now:
            new = now.pop(key)
            counts["updated"] += 1
            counts["changed"] += old.differs(new)
            merged.append(new)
        else:
            counts["kept"] += 1
            merged.append(old)
    counts["added"] = len(now)
    merged += now.values()
    return sorted(merged, key=lambda r: student_key(r.student)), counts


def _stats(values: list[float], top: float) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    return {"n": len(values), "max_points": top, "mean": round(statistics.fmean(values), 3),
            "median": statistics.median(values), "stdev": round(statistics.pstdev(values), 3),
            "min": min(values), "max": max(values),
            "full_marks": sum(v >= top for v in values) if top else None, "zero": sum(v == 0 for v in values)}


def summarize(rows: list[ClassRow], part_max: dict[str, float]) -> dict[str, Any]:
    """Counts by status, and the distribution of the total and of each part over every row."""
    statuses: dict[str, int] = {}
    for row in rows:
        statuses[row.status] = statuses.get(row.status, 0) + 1
    graded = [row.total for row in rows if row.status == Row.GRADED and row.total is not None]
    return {"submissions": len(rows), "statuses": statuses,
            "total": _stats([row.total for row in rows if row.total is not None], sum(part_max.values())),
            "total_graded_only": _stats(graded, sum(part_max.values())),
            "parts": {part: _stats([v for row in rows if (v := row.value(part)) is not None],  # type: ignore[misc]
                                   part_max[part])
                      for part in part_max}}


def summary_text(summary: dict[str, Any]) -> str:
    lines = [f"{summary['submissions']} submissions: "
             + ", ".join(f"{n} {status}" for status, n in sorted(summary["statuses"].items()))]
    header = f"  {'':<16}{'max':>6}{'mean':>9}{'median':>9}{'min':>7}{'max':>7}{'full':>6}{'zero':>6}"
    lines += ["", header]
    entries = [("total", summary["total"]), ("  graded only", summary["total_graded_only"])]
    entries += list(summary["parts"].items())
    for name, s in entries:
        if s.get("n"):
            lines.append(f"  {name:<16}{s['max_points']:>6g}{s['mean']:>9.2f}{s['median']:>9.4g}{s['min']:>7g}"
                         f"{s['max']:>7g}{s['full_marks']:>6}{s['zero']:>6}")
        else:
            lines.append(f"  {name:<16}  (no values)")
    return "\n".join(lines)


def write_summary(summary: dict[str, Any], stem: str | Path) -> tuple[Path, Path]:
    """``<stem>_summary.txt`` and ``<stem>_summary.json``; returns their paths."""
    text_path, json_path = Path(f"{stem}_summary.txt"), Path(f"{stem}_summary.json")
    write_atomic(text_path, summary_text(summary) + "\n")
    write_atomic(json_path, json.dumps(summary, indent=2) + "\n")
    return text_path, json_path


# Rows without a notebook to grade (SubmissionStatus.gradable) are shown apart in the class report's
# plots: their zero says nothing about the part.
NO_NOTEBOOK = "no gradable notebook"
COLOURS = {"graded": "#4C72B0", "attempted": "#4C72B0", "blank (nothing implemented)": "#DD8452",
           NO_NOTEBOOK: "#C44E52"}
