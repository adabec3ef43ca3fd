"""python -m autograder grade-all SUBMISSIONS_DIR --out grades.csv [--jobs N]

Grades every submission of a folder and writes one CSV row per student, per-student
feedback (results.json in Gradescope's schema and a readable feedback.txt), a summary
and one histogram per part. Layouts, mixed freely:

    DIR/<student>.ipynb
    DIR/<student>/*.ipynb
    DIR/<student>/<assignment>/*.ipynb      nbgrader's submitted/ folder
    DIR/submitted/<student>/<assignment>/*.ipynb   (DIR = an nbgrader course)

Resumable: each finished result is written atomically and keyed by the sha256 of the
notebook's bytes (and of the grader); a rerun reuses every finished result whose
notebook is unchanged and grades only the rest.
"""
import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

from .. import PARTS
from . import batch_summary as out
from .batch_pool import SUBMISSION_TOKEN, Pool

GRADER_SOURCES = ("autograder/engine", "autograder/sandbox", "autograder/suites", "solutions/reference", "solutions/lab")
ROOT = Path(__file__).resolve().parents[2]


def register(subparsers):
    p = subparsers.add_parser("grade-all", help="grade a folder of submissions into a CSV (resumable)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(handler=run)
    p.add_argument("submissions", help="folder of submissions (or an nbgrader course with submitted/)")
    p.add_argument("--out", default="grades.csv", help="CSV to write; feedback goes to <stem>_feedback/")
    p.add_argument("--jobs", type=int, default=1, help="grading processes, each with its own sandbox slot")
    p.add_argument("--part", action="append", choices=PARTS, help="grade only this part (repeatable)")
    p.add_argument("--assignment", default="week7_attention",
                   help="nbgrader assignment folder to prefer inside a student's folder")
    p.add_argument("--budget", type=float, default=300.0, help="seconds for each submission")
    p.add_argument("--visibility", default="visible",
                   choices=["visible", "hidden", "after_due_date", "after_published"])
    p.add_argument("--regrade", action="store_true", help="ignore finished results and grade everything again")
    p.add_argument("--debug", action="store_true", help="log internal tracebacks of failed checks too")


# ---- finding submissions ---------------------------------------------------------------

class Submission:
    def __init__(self, student, notebook=None, status="", detail=""):
        self.student, self.notebook, self.status, self.detail = student, notebook, status, detail
        self.sha256 = ""


def discover(folder, assignment, skip=()):
    """Submissions under ``folder``, sorted by student id; unusable ones carry a status."""
    folder = Path(folder)
    if (folder / "submitted").is_dir():
        folder = folder / "submitted"
    skip = {Path(s).resolve() for s in skip}
    found, seen = [], {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith((".", "_")) or entry.resolve() in skip:
            continue
        if entry.is_symlink():
            sub = Submission(entry.stem, None, "not-a-notebook", f"{entry.name} is a symbolic link; submit a file")
        elif entry.is_file():
            if entry.suffix != ".ipynb":
                continue  # a README or a roster beside the submissions
            sub = Submission(entry.stem, entry)
        elif entry.is_dir():
            sub = _from_folder(entry, assignment)
        else:
            continue
        n = seen[sub.student] = seen.get(sub.student, 0) + 1
        if n > 1:
            sub.student = f"{sub.student}~{n}"
        found.append(sub)
    return found


def _from_folder(folder, assignment):
    notebooks = _notebooks(folder)
    if not notebooks:
        subfolders = [d for d in sorted(folder.iterdir()) if d.is_dir() and not d.is_symlink()
                      and not d.name.startswith(".")]
        preferred = [d for d in subfolders if d.name == assignment]
        for sub in preferred or subfolders:
            notebooks += _notebooks(sub)
    if not notebooks:
        return Submission(folder.name, None, "no-notebook", "no .ipynb file in the submission")
    if len(notebooks) > 1:
        names = ", ".join(str(n.relative_to(folder)) for n in notebooks)
        return Submission(folder.name, None, "several-notebooks",
                          f"several notebooks ({names}); submit exactly one")
    if notebooks[0].is_symlink():
        return Submission(folder.name, None, "not-a-notebook", f"{notebooks[0].name} is a symbolic link")
    return Submission(folder.name, notebooks[0])


def _notebooks(folder):
    return [f for f in sorted(folder.iterdir()) if f.suffix == ".ipynb" and not f.name.startswith(".")
            and (f.is_file() or f.is_symlink())]


def grader_key(args):
    """What a finished result depends on besides the notebook: the grader's code and options."""
    digest = hashlib.sha256()
    for folder in GRADER_SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    options = {"parts": sorted(args.part) if args.part else None, "budget": args.budget,
               "visibility": args.visibility}
    digest.update(json.dumps(options, sort_keys=True).encode())
    return digest.hexdigest()[:20]


# ---- the run ---------------------------------------------------------------------------

def run(args):
    from tqdm import tqdm

    source = Path(args.submissions).resolve()
    if not source.is_dir():
        print(f"grade-all: {args.submissions} is not a folder", file=sys.stderr)
        return 2
    csv_path = Path(args.out).resolve()
    stem = csv_path.with_suffix("")
    feedback = Path(f"{stem}_feedback")
    feedback.mkdir(parents=True, exist_ok=True)
    log = Log(Path(f"{stem}.log"))
    subs = discover(source, args.assignment,
                    skip=[feedback, csv_path, f"{stem}_plots", f"{stem}.log", f"{stem}_summary.txt",
                          f"{stem}_summary.json"])
    key = grader_key(args)
    rows, tasks = {}, {}
    for sub in subs:
        if sub.notebook is not None:
            sub.sha256 = hashlib.sha256(sub.notebook.read_bytes()).hexdigest()
            record = None if args.regrade else _load(feedback / sub.student / "record.json")
            if (record and record.get("sha256") == sub.sha256 and record.get("key") == key
                    and record["row"]["status"] != "grader-error"):
                rows[sub.student] = record["row"]
                log.write(f"reused {sub.student} sha256={sub.sha256[:12]} total={record['row']['total']:g}")
                continue
            # Identical notebooks with the same file name give identical results: grade once.
            task = tasks.setdefault((sub.sha256, sub.notebook.name), {
                "id": len(tasks), "path": str(sub.notebook), "students": []})
            task["students"].append(sub)
    started = time.monotonic()
    bar = tqdm(total=len(subs), file=sys.stderr, unit="nb", desc="grading", dynamic_ncols=True)
    bar.update(len(rows))
    problems = [s for s in subs if s.notebook is None]
    if problems:
        _write_problems(problems, rows, feedback, args, log)
        bar.update(len(problems))
    hide = [str(source), str(feedback)] + ([str(csv_path.parent)] if _hideable(csv_path.parent) else [])
    options = {"parts": args.part or None, "budget": args.budget, "visibility": args.visibility,
               "hide": hide, "debug": args.debug}
    work = sorted(tasks.values(), key=lambda t: t["id"])
    tops = {}  # part -> its points, as the grading processes report them
    if work:
        log.write(f"grading {sum(len(t['students']) for t in work)} submissions ({len(work)} distinct) "
                  f"with {args.jobs} grading process(es); {len(rows)} finished results reused")

        def finished(task, result):
            tops.update({part: top for part, (_, top) in (result.get("by_part") or {}).items()})
            for sub in task["students"]:
                rows[sub.student] = _write_result(sub, result, feedback, source, key, log)
                bar.update(1)
            bar.set_postfix_str(f"last {task['students'][0].student}: {result['status']}")

        pool = Pool(max(1, min(args.jobs, len(work))), options)
        try:
            pool.run(work, finished)
        except BaseException:
            pool.close(force=True)
            raise
        pool.close()
    bar.close()
    ordered = [rows[s.student] for s in subs]
    out.write_csv(ordered, csv_path)
    # From the results when they cover every part: collecting the suites here would cost ~2 s.
    part_max = tops if set(tops) == set(args.part or PARTS) else _part_max(args.part)
    part_max = {p: part_max[p] for p in PARTS if p in part_max}
    summary = out.summarize(ordered, part_max)
    summary["seconds"] = round(time.monotonic() - started, 1)
    text = out.summary_text(summary)
    out.write_summary(summary, stem)
    out.histograms(ordered, part_max, f"{stem}_plots")
    print(text)
    print(f"\nwrote {csv_path}, {stem}_summary.txt, {stem}_plots/, feedback in {feedback}/ "
          f"({summary['seconds']:g} s)")
    log.write(f"done: {len(ordered)} rows in {summary['seconds']:g} s")
    return 1 if summary["statuses"].get("grader-error") else 0


def _hideable(folder):
    """The CSV's folder holds everyone's grades; hide it unless the worker needs what is under it."""
    folder = folder.resolve()
    needed = [Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), Path(sys.executable).resolve()]
    return folder != Path("/") and not any(folder == n or folder in n.parents for n in needed)


def _part_max(parts):
    from ..engine.catalog import part_points

    return {p: top for p, top in part_points().items() if not parts or p in parts}


def _row(sub, result, source):
    by_part = result.get("by_part") or {}
    detail = (result.get("problem") or sub.detail or "").strip()
    row = {"student": sub.student, "total": float(result.get("score") or 0.0), "status": result["status"],
           "seconds": result.get("seconds", 0.0), "sha256": sub.sha256,
           "notebook": str(sub.notebook.relative_to(source)) if sub.notebook else "",
           "detail": detail.splitlines()[0][:300] if detail else ""}
    for part in PARTS:
        row[part] = by_part[part][0] if part in by_part else None
    return row


def _feedback_text(sub, result, source):
    name = f"{sub.student}: {sub.notebook.relative_to(source)}" if sub.notebook else sub.student
    return result["table"].replace(SUBMISSION_TOKEN, name, 1) + "\n"


def _write_result(sub, result, feedback, source, key, log):
    """results.json and feedback.txt, then record.json last: a record means a finished result."""
    folder = feedback / sub.student
    row = _row(sub, result, source)
    out.write_atomic(folder / "results.json", json.dumps(result["gradescope"], indent=2) + "\n")
    out.write_atomic(folder / "feedback.txt", _feedback_text(sub, result, source))
    record = {"version": 1, "student": sub.student, "sha256": sub.sha256, "key": key, "row": row,
              "finished": time.strftime("%Y-%m-%dT%H:%M:%S")}
    out.write_atomic(folder / "record.json", json.dumps(record, indent=2) + "\n")
    log.write(f"graded {sub.student} sha256={sub.sha256[:12]} status={row['status']} total={row['total']:g} "
              f"seconds={row['seconds']:g}")
    for internal in result.get("internal") or []:
        log.write(f"internal error while grading {sub.student}:\n{internal}")
    return row


def _write_problems(problems, rows, feedback, args, log):
    """Students without a gradable notebook: zero points, and feedback that says why."""
    from ..engine import report as rep
    from ..engine.grade import failed_everywhere

    for sub in problems:
        report = failed_everywhere(SUBMISSION_TOKEN, f"Your submission could not be graded: {sub.detail}",
                                   args.part or None)
        result = {"status": sub.status, "score": 0.0, "by_part": report.by_part(), "problem": sub.detail,
                  "seconds": 0.0, "gradescope": rep.gradescope(report, args.visibility), "table": rep.table(report)}
        result["by_part"] = {p: list(v) for p, v in result["by_part"].items()}
        folder = feedback / sub.student
        out.write_atomic(folder / "results.json", json.dumps(result["gradescope"], indent=2) + "\n")
        out.write_atomic(folder / "feedback.txt", _feedback_text(sub, result, None))
        (folder / "record.json").unlink(missing_ok=True)
        rows[sub.student] = _row(sub, result, None)
        log.write(f"{sub.status} {sub.student}: {sub.detail}")


def _load(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


class Log:
    """Append-only run log next to the CSV: what was graded, what was reused, grader tracebacks."""

    def __init__(self, path):
        self.path = path

    def write(self, line):
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {line}\n")
            handle.flush()
