"""What `grade-all` writes besides per-student feedback: the CSV (and merging into one), the summary."""
import csv
import io
import json
import re
import statistics
from pathlib import Path

from ..assignment import PART_IDS as PARTS
from ..engine.output_file import fsync_dir, write_atomic  # noqa: F401 - the flows' writer, named here too
from ..engine.safe_text import csv_cell, csv_text
from ..engine.submission_file import SubmissionStatus as Row

TAIL = ["total", "status", "seconds", "notebook", "sha256", "detail"]


def columns(rows=()):
    """The CSV's columns; hand-scored written answers (q1, q2, .. from grade-all --hand) go before the total."""
    written = sorted({k for row in rows for k in row if re.fullmatch(r"q\d+", k)}, key=lambda k: int(k[1:]))
    return ["student", *PARTS, *written, *TAIL]


def write_csv(rows, path):
    out = io.StringIO()
    fields = columns(rows)
    writer = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(row.get(k)) for k in fields})
    write_atomic(path, out.getvalue())


def read_csv(path):
    """The rows of a grades CSV this module wrote: numbers back as floats (None when empty), text unescaped.

    Raises ValueError when the file is not one (no ``student`` or ``total`` column).
    """
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = {"student", "total", "status"} - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"no {', '.join(sorted(missing))} column")
        rows = []
        for raw in reader:
            row = {name: csv_text(value) for name, value in raw.items()}  # as given to csv_cell, not as escaped
            for name in (*PARTS, "total", "seconds"):
                value = (row.get(name) or "").strip()
                try:
                    row[name] = float(value) if value else None
                except ValueError:
                    row[name] = None
            if row["total"] is None and row.get("status") != Row.GRADER_ERROR:  # a grader fault has no score
                row["total"] = 0.0
            rows.append(row)
    return rows


def student_key(name):
    """A student as the CSV shows them: rows read back from a CSV and rows of this run compare equal."""
    return csv_cell(name)


def merge(previous, current):
    """``previous`` rows (read from the CSV) with ``current`` ones added or put in their place; sorted by student.

    Returns (rows, counts): ``updated`` were in both, ``changed`` of those differ in total,
    status, a part or the notebook's sha256, ``added`` are new, ``kept`` were only in ``previous``.
    """
    now = {student_key(r["student"]): r for r in current}
    merged, counts = [], {"updated": 0, "changed": 0, "added": 0, "kept": 0}
    for old in previous:
        key = student_key(old["student"])
        if key in now:
            new = now.pop(key)
            counts["updated"] += 1
            if any(_cell(old.get(k)) != _cell(new.get(k)) for k in ("total", "status", "sha256", *PARTS)):
                counts["changed"] += 1
            merged.append(new)
        else:
            counts["kept"] += 1
            merged.append(old)
    counts["added"] = len(now)
    merged += now.values()
    return sorted(merged, key=lambda r: student_key(r["student"])), counts


def _cell(value):
    """A CSV cell: numbers as numbers; text escaped and never read as a formula (safe_text.csv_cell)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:g}" if value == round(value, 6) else f"{value:.6g}"
    if isinstance(value, int):
        return value
    return csv_cell(value)


def _stats(values, top):
    if not values:
        return {"n": 0}
    return {"n": len(values), "max_points": top, "mean": round(statistics.fmean(values), 3),
            "median": statistics.median(values), "stdev": round(statistics.pstdev(values), 3),
            "min": min(values), "max": max(values),
            "full_marks": sum(v >= top for v in values) if top else None, "zero": sum(v == 0 for v in values)}


def summarize(rows, part_max):
    """Counts by status, and the distribution of the total and of each part over every row."""
    statuses = {}
    for row in rows:
        statuses[row["status"]] = statuses.get(row["status"], 0) + 1
    graded = [row["total"] for row in rows if row["status"] == Row.GRADED]
    return {"submissions": len(rows), "statuses": statuses,
            "total": _stats([row["total"] for row in rows if row.get("total") is not None], sum(part_max.values())),
            "total_graded_only": _stats(graded, sum(part_max.values())),
            "parts": {part: _stats([row[part] for row in rows if row.get(part) is not None], part_max[part])
                      for part in part_max}}


def summary_text(summary):
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


def write_summary(summary, stem):
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
