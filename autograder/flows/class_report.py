"""python -m autograder class-report grades.csv   (grade-all writes it too: report.html beside grades.csv)

One self-contained HTML page for the instructor: the distribution of each part and of the
total (submissions without a gradable notebook, and blank ones, marked apart), the checks
most often failed by the students who attempted the part, the feedback most often given,
the most common diagnosed causes (when the suites name them), and for each check the
students who failed it.

A pure function of the files grade-all wrote, so it can be made again at any time:
``grades.csv``, ``grades_summary.json`` (the points of each part), and per student
``grades_checks/<student>.json`` (every check with its full reason; instructors only),
or, for a row graded before that file existed, ``grades_feedback/<student>/results.json``.

Everything a student controls (names, messages) is escaped (safe_text, then HTML), the
plots are inline SVG drawings (flows/histogram.py), and a Content-Security-Policy forbids scripts and any fetch:
the page loads nothing and runs nothing.
"""
import argparse
import html
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..assignment import PART_IDS as PARTS
from ..engine.safe_text import text
from ..engine.submission_file import UNGRADABLE
from . import batch_summary as out, histogram
from .records import ClassRow

NOT_IMPLEMENTED = "not implemented yet"
ATTEMPTED, BLANK, NO_NOTEBOOK = "attempted", "blank (nothing implemented)", out.NO_NOTEBOOK
CATEGORIES = (ATTEMPTED, BLANK, NO_NOTEBOOK)
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
TOP_MESSAGES = 25  # the report's list of the most frequent feedback: how long a list reads well, not a limit


@dataclass(frozen=True)
class ReportOptions:
    """`class-report`'s options (it grades nothing: no settings)."""
    grades: str
    out: str | None


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = subparsers.add_parser("class-report", help="(re)write report.html from a grade-all CSV",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(handler=run, options=ReportOptions)
    p.add_argument("grades", help="the grades.csv grade-all wrote")
    p.add_argument("--out", help="HTML file to write (default: report.html beside the CSV)")


def run(options: ReportOptions) -> int:
    try:
        path = write(options.grades, options.out)
    except (OSError, ValueError) as err:
        print(f"class-report: {options.grades}: {err}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


def write(csv_path: str | Path, html_path: str | Path | None = None) -> Path:
    """report.html beside the CSV, and its histograms also as <stem>_plots/<part>.svg."""
    csv_path = Path(csv_path)
    html_path = Path(html_path) if html_path else csv_path.with_name("report.html")
    drawings: dict[str, str] = {}
    out.write_atomic(html_path, render(load(csv_path), drawings))
    folder = csv_path.with_name(f"{csv_path.stem}_plots")
    folder.mkdir(parents=True, exist_ok=True)
    for name, drawing in drawings.items():
        out.write_atomic(folder / f"{name}.svg", drawing + "\n")
    return html_path


# ---- reading what grade-all wrote -------------------------------------------------------------

def _safe_folder_name(name: str) -> str | bool:
    return name and "/" not in name and "\0" not in name and name not in (".", "..")


def student_files(stem: Path, student: str) -> list[str]:
    """The file names a row's student may have on disk (the CSV shows a formula-like name with a leading ')."""
    names = [student] + ([student[1:]] if student.startswith("'") else [])
    return [n for n in names if _safe_folder_name(n)]


def _checks_of(stem: Path, student: str) -> list[dict[str, Any]] | None:
    """The student's checks: [{part, title, status, message, hint, cause}], or None when no file has them."""
    for name in student_files(stem, student):
        data = out_load(Path(f"{stem}_checks") / f"{name}.json")
        if isinstance(data, dict) and isinstance(data.get("checks"), list):
            return [c for c in data["checks"] if isinstance(c, dict)]
    for name in student_files(stem, student):
        data = out_load(Path(f"{stem}_feedback") / name / "results.json")
        if isinstance(data, dict) and isinstance(data.get("tests"), list):
            return [{"part": (t.get("tags") or ["?"])[0], "title": t.get("name", "?"),
                     "status": t.get("status") or ("passed" if t.get("score", 0) >= t.get("max_score", 1) else "failed"),
                     "message": t.get("output") or "", "hint": "", "cause": t.get("cause") or ""}
                    for t in data["tests"] if isinstance(t, dict)]
    return None


def out_load(path: str | Path) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _part_max(stem: Path, rows: list[ClassRow]) -> dict[str, float]:
    summary = out_load(f"{stem}_summary.json") or {}
    found: dict[str, Any] = {p: s.get("max_points") for p, s in (summary.get("parts") or {}).items() if isinstance(s, dict)}
    found = {p: float(v) for p, v in found.items() if isinstance(v, (int, float))}
    if found:
        return {p: found[p] for p in PARTS if p in found}
    from ..engine.catalog import part_points  # the summary is gone: ask the suites (~2 s)

    present = {p for p in PARTS if any(r.value(p) is not None for r in rows)}
    return {p: top for p, top in part_points().items() if p in present}


def _failed(check: dict[str, Any]) -> bool:
    return check.get("status") not in ("passed",)


def _not_implemented(check: dict[str, Any]) -> bool:
    """A failure because the function still raises NotImplementedError (the release's stub)."""
    message = str(check.get("message") or "")
    return NOT_IMPLEMENTED in message or "raised NotImplementedError" in message


def category(row: ClassRow, checks: list[dict[str, Any]] | None) -> str:
    """attempted, blank (score 0 and every failed check "not implemented yet"), or no gradable notebook."""
    if row.status in UNGRADABLE:
        return NO_NOTEBOOK
    if checks and not (row.total or 0):
        failed = [c for c in checks if _failed(c)]
        if failed and all(_not_implemented(c) for c in failed):
            return BLANK
    return ATTEMPTED


def load(csv_path: str | Path) -> dict[str, Any]:
    """Everything the page shows, as plain data (also what the tests look at)."""
    csv_path = Path(csv_path)
    stem = csv_path.with_suffix("")
    rows = out.read_csv(csv_path)
    part_max = _part_max(stem, rows)
    students: list[dict[str, Any]] = []
    for row in rows:
        checks = _checks_of(stem, row.student)
        students.append({"row": row, "checks": checks, "category": category(row, checks)})
    return {"csv": csv_path.name, "rows": rows, "part_max": part_max, "students": students,
            "generated": time.strftime("%Y-%m-%d %H:%M")}


# ---- what the page says -----------------------------------------------------------------------

def _attempted_part(checks: list[dict[str, Any]], part: str) -> bool:
    mine = [c for c in checks if c.get("part") == part]
    return bool(mine) and any(not _failed(c) or not _not_implemented(c) for c in mine)


def analyse(data: dict[str, Any]) -> dict[str, Any]:
    """Counts behind every table of the page."""
    students = data["students"]
    by_category = Counter(s["category"] for s in students)
    statuses = Counter(s["row"].status or "?" for s in students)
    attempted: defaultdict[str, int] = defaultdict(int)  # part -> students who attempted it
    failed: defaultdict[tuple[str, str], list[str]] = defaultdict(list)  # (part, title) -> students who attempted the part and failed it (not "not implemented")
    failed_blank: defaultdict[tuple[str, str], int] = defaultdict(int)  # (part, title) -> the others who failed it
    checks_order: dict[tuple[str, str], int] = {}
    messages: Counter[str] = Counter()
    causes, cause_checks = Counter[str](), defaultdict[str, set[tuple[str, str]]](set)
    missing_details = []
    for s in students:
        name, checks = s["row"].student, s["checks"]
        if checks is None:
            if s["category"] != NO_NOTEBOOK:
                missing_details.append(name)
            continue
        if s["category"] == NO_NOTEBOOK:
            continue
        seen_messages = set()
        for part in PARTS:
            tried = s["category"] == ATTEMPTED and _attempted_part(checks, part)
            attempted[part] += tried
            for c in (c for c in checks if c.get("part") == part):
                key = (part, str(c.get("title") or "?"))
                checks_order.setdefault(key, len(checks_order))
                if not _failed(c):
                    continue
                if tried and not _not_implemented(c):
                    failed[key].append(name)
                else:
                    failed_blank[key] += 1
                if s["category"] == ATTEMPTED:
                    said = " ".join(x for x in (str(c.get("message") or ""), str(c.get("hint") or "")) if x).strip()
                    if said and said not in seen_messages:
                        seen_messages.add(said)
                        messages[said] += 1
                cause = str(c.get("cause") or "").strip()
                if cause:
                    causes[cause] += 1
                    cause_checks[cause].add(key)
    most_failed = sorted(((key, len(names), attempted[key[0]]) for key, names in failed.items() if names),
                         key=lambda x: (-x[1] / max(x[2], 1), -x[1], checks_order[x[0]]))
    return {"by_category": by_category, "statuses": statuses, "attempted": dict(attempted), "failed": failed,
            "failed_blank": failed_blank, "checks_order": checks_order, "most_failed": most_failed,
            "messages": messages.most_common(TOP_MESSAGES), "causes": causes.most_common(),
            "cause_checks": cause_checks, "missing_details": missing_details}


def _groups(data: dict[str, Any], name: str) -> dict[str, list[float]]:
    groups: dict[str, list[float]] = {c: [] for c in CATEGORIES}
    for s in data["students"]:
        value = s["row"].value(name)
        if value is not None:
            groups[s["category"]].append(value)  # a part's or the total's cell: a number
    return groups


def _stats(values: list[float], top: float) -> dict[str, float] | None:
    if not values:
        return None
    return {"n": len(values), "mean": statistics.fmean(values), "median": statistics.median(values),
            "full": sum(v >= top for v in values), "zero": sum(v == 0 for v in values)}


# ---- HTML -------------------------------------------------------------------------------------

def e(value: object, multiline: bool = False) -> str:
    """Student-controlled (or any) text for HTML: made safe (safe_text), then HTML-escaped."""
    return html.escape(text(value, multiline), quote=True)


def _num(value: float) -> str:
    return f"{value:.1f}" if isinstance(value, float) and value != round(value) else f"{value:g}"


STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1100px;
color:#222;padding:0 1em}
h1{font-size:1.6em} h2{margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;margin:.5em 0} th,td{border:1px solid #ddd;padding:.3em .6em;text-align:left;
vertical-align:top} th{background:#f4f4f4} td.n{text-align:right;font-variant-numeric:tabular-nums}
.plots{display:flex;flex-wrap:wrap;gap:1em} .plots figure{margin:0} .plots svg{border:1px solid #eee}
.msg{white-space:pre-wrap;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}
details{margin:.3em 0} summary{cursor:pointer} .muted{color:#777}
.cat-attempted{color:#4C72B0} .cat-blank{color:#DD8452} .cat-none{color:#C44E52}
"""


def render(data: dict[str, Any], drawings: dict[str, str] | None = None) -> str:
    """The page's HTML; ``drawings``, if given, receives each histogram's SVG by part ("total" too)."""
    a = analyse(data)
    part_max = data["part_max"]
    total_max = sum(part_max.values())
    n = len(data["students"])
    parts = [p for p in PARTS if p in part_max]
    h = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
         f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
         '<meta name="viewport" content="width=device-width, initial-scale=1">',
         f"<title>Class report: {e(data['csv'])}</title><style>{STYLE}</style></head><body>",
         f"<h1>Class report: {e(data['csv'])}</h1>",
         f'<p class="muted">{n} submissions; generated {e(data["generated"])} by '
         f"<code>python -m autograder class-report</code>.</p>"]

    # overview
    h.append('<h2 id="overview-title">Submissions</h2><table id="overview"><tr><th>kind</th><th>students</th></tr>')
    for cat in CATEGORIES:
        h.append(f'<tr data-category="{e(cat)}"><td>{e(cat)}</td><td class="n">{a["by_category"].get(cat, 0)}</td></tr>')
    h.append('</table><table id="statuses"><tr><th>status</th><th>students</th></tr>')
    for status, count in sorted(a["statuses"].items()):
        h.append(f'<tr data-status="{e(status)}"><td>{e(status)}</td><td class="n">{count}</td></tr>')
    h.append("</table>")
    if a["missing_details"]:
        h.append(f'<p class="muted" id="no-details">No per-check results on disk for: '
                 f'{e(", ".join(a["missing_details"]))} (their rows count in the distributions only).</p>')

    # distributions
    h.append('<h2>Score distribution</h2><p class="muted">Blue: submissions with something implemented; orange: '
             'blank notebooks (score 0, every check "not implemented yet"); red: no gradable notebook '
             '(not a notebook, no notebook, several notebooks). Means and medians are over the attempted ones.</p>')
    h.append('<table id="distribution"><tr><th>part</th><th>max</th><th>attempted</th><th>mean</th><th>median</th>'
             '<th>full marks</th><th>zero</th><th>blank</th><th>no notebook</th></tr>')
    plots = []
    for name, top in [*[(p, part_max[p]) for p in parts], ("total", total_max)]:
        groups = _groups(data, name)
        st = _stats(groups[ATTEMPTED], top)
        cells = ([st["n"], _num(st["mean"]), _num(st["median"]), st["full"], st["zero"]] if st
                 else [0, "", "", "", ""])
        h.append(f'<tr data-part="{e(name)}"><td>{e(name)}</td><td class="n">{_num(top)}</td>'
                 + "".join(f'<td class="n">{c}</td>' for c in cells)
                 + f'<td class="n">{len(groups[BLANK])}</td><td class="n">{len(groups[NO_NOTEBOOK])}</td></tr>')
        drawing = histogram.svg(name, top, groups, out.COLOURS)
        if drawing and drawings is not None:
            drawings[name] = drawing
        if drawing:
            plots.append(f"<figure>{drawing}</figure>")
    h.append('</table><div class="plots" id="plots">' + "".join(plots) + "</div>")

    # most failed checks
    h.append('<h2>Checks most often failed</h2><p class="muted">Among the students who attempted the part '
             '(implemented at least one of its functions); a check failed with "not implemented yet" is not '
             'counted.</p>')
    h.append('<table id="most-failed"><tr><th>part</th><th>check</th><th>failed</th><th>attempted</th>'
             '<th>rate</th></tr>')
    for (part, title), count, tried in a["most_failed"]:
        h.append(f'<tr data-part="{e(part)}"><td>{e(part)}</td><td>{e(title)}</td><td class="n">{count}</td>'
                 f'<td class="n">{tried}</td><td class="n">{100 * count / max(tried, 1):.0f}%</td></tr>')
    if not a["most_failed"]:
        h.append('<tr><td colspan="5" class="muted">no check failed among the students who attempted it</td></tr>')
    h.append("</table>")

    # messages
    h.append(f'<h2>Feedback most often given</h2><p class="muted">The {TOP_MESSAGES} most frequent reasons '
             'given for a failed check (what was found and the hint), counted once per student, over the '
             'attempted submissions.</p><table id="messages"><tr><th>students</th><th>feedback</th></tr>')
    for message, count in a["messages"]:
        h.append(f'<tr><td class="n">{count}</td><td class="msg">{e(message, multiline=True)}</td></tr>')
    h.append("</table>")

    # causes
    if a["causes"]:
        h.append('<h2>Most common causes</h2><table id="causes"><tr><th>cause</th><th>failed checks</th>'
                 '<th>checks</th></tr>')
        for cause, count in a["causes"]:
            where = ", ".join(f"{p}: {t}" for p, t in sorted(a["cause_checks"][cause]))
            h.append(f'<tr><td>{e(cause)}</td><td class="n">{count}</td><td>{e(where)}</td></tr>')
        h.append("</table>")

    # by check
    h.append('<h2>Who failed each check</h2><p class="muted">Students who attempted the part and failed the check; '
             'blank and "not implemented yet" failures are only counted.</p><div id="by-check">')
    for part in parts:
        keys = sorted((k for k in a["checks_order"] if k[0] == part), key=a["checks_order"].get)
        h.append(f'<h3 id="part-{e(part)}">{e(part)} <span class="muted">({a["attempted"].get(part, 0)} attempted)'
                 "</span></h3>")
        for key in keys:
            names = a["failed"].get(key, [])
            others = a["failed_blank"].get(key, 0)
            extra = f", and {others} blank or not implemented" if others else ""
            h.append(f'<details data-part="{e(part)}" data-failed="{len(names)}"><summary>{e(key[1])}: '
                     f"<b>{len(names)}</b> failed{extra}</summary>")
            h.append("<ul>" + "".join(f"<li>{e(name)}</li>" for name in sorted(names, key=str.lower))
                     + "</ul></details>" if names else '<p class="muted">nobody</p></details>')
    h.append("</div></body></html>")
    return "\n".join(h) + "\n"
