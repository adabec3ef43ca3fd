"""`make nbgrader-autograde`: grade in the sandbox, then let the real nbgrader keep the books.

    python -m autograder.flows.nbgrader COURSE_DIR [--student ID ...] [--feedback hints]

1. One worker template for the whole course, started before anything is read.
2. Each COURSE/submitted/<student>/week7_attention/week7_attention.ipynb is read once (no
   symlinks, a regular file), its bytes kept in COURSE/isolated/<student>/submitted.ipynb
   and graded there by the isolated grader; record.json holds the sha256, the points per
   part, every check and every executed cell's output (record.py).
3. The real `nbgrader autograde` (gradebook, timestamps, late penalties, the formgrader's
   written answers) runs the notebook in kernel `week7-isolated` (kernel.py), which runs no
   code: each test cell's value is the recorded part score, so the gradebook's points come
   from the isolated grader. nbgrader_config.py restores tampered metadata first.
4. The gradebook's per-part points must equal the records: any student nbgrader failed on,
   or whose points differ, is reported and the command exits 1.
5. `nbgrader generate_feedback` (hidden tests removed) and `nbgrader export` (grades.csv).
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from ...assignment import course_notebook
from ...settings import DEFAULT_FEEDBACK, FEEDBACK_LEVELS
from . import ASSIGNMENT, KERNEL_NAME, part_of

KERNEL_MODULE = "autograder.flows.nbgrader.kernel"
TOLERANCE = 1e-6


# ---- the kernel spec -------------------------------------------------------------------------
def kernel_spec(python=None):
    """kernel.json of `week7-isolated`: this interpreter, isolated mode (-I: the working directory,
    which holds the student's files, is not importable; PYTHON* variables are ignored)."""
    return {"argv": [python or sys.executable, "-I", "-m", KERNEL_MODULE, "-f", "{connection_file}"],
            "display_name": "week7 isolated grades (runs no code)", "language": "python",
            "metadata": {"debugger": False}}


def kernel_spec_path(prefix=None):
    return Path(prefix or sys.prefix) / "share" / "jupyter" / "kernels" / KERNEL_NAME / "kernel.json"


def install_kernel(prefix=None):
    """Install the kernel spec into the venv (`--sys-prefix`, next to its `python3` kernel)."""
    path = kernel_spec_path(prefix)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(kernel_spec(), indent=1) + "\n")
    return path


def check_kernel(env=None):
    """The spec Jupyter resolves for `week7-isolated` must be ours, in this venv; installed if missing."""
    code = ("import json, jupyter_client.kernelspec as k; s = k.KernelSpecManager().get_kernel_spec("
            f"{KERNEL_NAME!r}); print(json.dumps([s.argv, s.resource_dir]))")

    def resolve():
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env or nbgrader_env())

    run = resolve()
    if run.returncode != 0:
        print(f"installing Jupyter kernel {KERNEL_NAME!r} into {sys.prefix}", file=sys.stderr)
        install_kernel()
        run = resolve()
    if run.returncode != 0:
        raise SystemExit(f"Jupyter kernel {KERNEL_NAME!r} not found; run `make install`.\n{run.stderr[-2000:]}")
    argv, _ = json.loads(run.stdout)
    if argv != kernel_spec()["argv"]:
        raise SystemExit(f"Jupyter kernel {KERNEL_NAME!r} runs {argv}, not this package's isolated kernel; "
                         "run `make install`")
    return argv


# ---- nbgrader ----------------------------------------------------------------------------------
def nbgrader_env(base=None):
    """Environment for nbgrader: this interpreter's bin first on PATH (nbgrader runs `alembic`),
    its Jupyter data first (so kernel `week7-isolated` is this venv's)."""
    env = dict(base if base is not None else os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    jupyter = os.path.join(sys.prefix, "share", "jupyter")
    env["JUPYTER_PATH"] = jupyter + (os.pathsep + env["JUPYTER_PATH"] if env.get("JUPYTER_PATH") else "")
    env.update(MPLBACKEND="Agg", OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    return env


def log_path(course):
    """COURSE/logs/nbgrader-<timestamp>.log: a new file for each run of the flow."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = Path(course) / "logs" / f"nbgrader-{stamp}.log"
    n = 1
    while path.exists():
        n += 1
        path = path.with_name(f"nbgrader-{stamp}-{n}.log")
    return path


def nbgrader(course, *args, check=True, log_file=None):
    """Run `nbgrader ARGS` in the course; its whole output is appended to ``log_file`` when given."""
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    run = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, capture_output=True, text=True,
                         env=nbgrader_env())
    if log_file is not None:
        Path(log_file).parent.mkdir(parents=True, exist_ok=True)
        with open(log_file, "a", encoding="utf-8") as handle:
            handle.write(f"===== {started}  nbgrader {' '.join(args)}  (exit {run.returncode})\n")
            handle.write(run.stdout + ("" if run.stdout.endswith("\n") or not run.stdout else "\n"))
            handle.write(run.stderr + ("" if run.stderr.endswith("\n") or not run.stderr else "\n"))
    if check and run.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed (exit {run.returncode}):\n"
                           f"{run.stdout[-4000:]}\n{run.stderr[-8000:]}"
                           + (f"\nfull nbgrader log: {log_file}" if log_file else ""))
    return run


def students(course):
    root = Path(course) / "submitted"
    return sorted(p.parent.name for p in root.glob(f"*/{ASSIGNMENT}") if p.is_dir() or p.is_symlink())


def gradebook_points(course, student_ids=None, auto=False):
    """{student: {part: (score or None, max_score)}} of the autograder test cells, from the gradebook.

    None for a student with no submission in the gradebook; a score is None when the grade
    is empty (never autograded), never a silent 0. ``auto``: nbgrader's auto_score only
    (what autograde wrote), else the final score (a manual override wins)."""
    from nbgrader.api import Gradebook, MissingEntry

    course = Path(course).resolve()
    points = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in student_ids or students(course):
            try:
                notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
            except MissingEntry:
                points[student] = None
                continue
            parts = {}
            for g in notebook.grades:
                if part_of(g.name):
                    value = g.auto_score if auto or g.manual_score is None else g.manual_score
                    parts[part_of(g.name)] = (None if value is None else float(value), float(g.max_score))
            points[student] = parts
    return points


def compare(gradebook, isolated):
    """[(part, gradebook score, isolated score)] where they differ; a missing score counts as None."""
    out = []
    for part in sorted(set(gradebook) | set(isolated)):
        ours, theirs = gradebook.get(part), isolated.get(part)
        if ours is None or theirs is None or abs(ours - theirs) > TOLERANCE:
            out.append((part, ours, theirs))
    return out


# ---- grading in the sandbox --------------------------------------------------------------------
def grade_into_record(course, student, grader, log=print):
    """Read the submission once, keep its bytes, grade them in the sandbox, write record.json."""
    from ...engine.grade import failed_everywhere, read_code_cells, NotebookError
    from .record import Unreadable, build_record, keep_copy, read_submission, sha256, write_record

    started, clock = time.time(), time.monotonic()
    try:
        data = read_submission(course, student)
    except Unreadable as err:
        report, digest, cells = failed_everywhere(f"submitted/{student}", str(err)), None, []
        keep_copy(course, student, b"")
    else:
        digest = sha256(data)
        copy = keep_copy(course, student, data)
        report = grader.grade(copy, hide=[str(course)])
        if report.sha256 and report.sha256 != digest:
            raise RuntimeError(f"the recorded copy of {student} changed while it was graded")
        try:
            cells = read_code_cells(copy)
        except (NotebookError, OSError):
            cells = []
    record = build_record(student, digest, report, cells, grader.feedback, started)
    write_record(course, student, record)
    log(f"  {student:<24}isolated {report.score:>6g} / {report.max_score:g}  ({time.monotonic() - clock:.1f} s)")
    return record


# ---- the flow ----------------------------------------------------------------------------------
def autograde_course(course, student_ids=None, level=DEFAULT_FEEDBACK, log=print):
    """Grade, autograde, verify, feedback, export. Returns {"ids", "records", "failed"}.

    ``failed``: {student: why} of every student whose gradebook does not hold the isolated
    grade (nbgrader failed, or the points differ); empty when all is well.
    """
    from ...engine.grader import Grader

    # First: the template must inherit no roster and no grade. Closed once the sandbox's part is done.
    with Grader(feedback=level) as grader:
        course = Path(course).resolve()
        if not (course / "nbgrader_config.py").exists():
            raise SystemExit(f"{course} is not an nbgrader course (no nbgrader_config.py); run `make release`")
        ids = list(student_ids or students(course))
        if not ids:
            log(f"no submissions under {course / 'submitted'}/<student>/{ASSIGNMENT}/")
            return {"ids": [], "records": {}, "failed": {}}
        log(f"grading {len(ids)} submission(s) in the sandbox: {', '.join(ids)}")
        records = {s: grade_into_record(course, s, grader, log) for s in ids}
    check_kernel()
    logged = log_path(course)
    log(f"nbgrader autograde ({len(ids)} submission(s), kernel {KERNEL_NAME}); full nbgrader log: {logged}")
    runs = [nbgrader(course, "autograde", ASSIGNMENT, "--force", check=False, log_file=logged)] \
        if student_ids is None else \
        [nbgrader(course, "autograde", ASSIGNMENT, "--force", "--student", s, check=False, log_file=logged)
         for s in ids]
    failed = verify(course, ids, records)
    if failed:
        stderr = "\n".join(r.stderr[-6000:] for r in runs if r.returncode != 0)
        log(f"nbgrader autograde exit status {max(r.returncode for r in runs)}\n{stderr}\n"
            f"(the full nbgrader log: {logged})")
    if len(failed) < len(ids):  # nbgrader itself fails when no notebook was autograded
        if student_ids is None:
            nbgrader(course, "generate_feedback", ASSIGNMENT, "--force", log_file=logged)
        for student in student_ids or ():
            if student not in failed:
                nbgrader(course, "generate_feedback", ASSIGNMENT, "--force", "--student", student, log_file=logged)
    nbgrader(course, "export", log_file=logged)
    log(f"feedback in {course / 'feedback'}/, grades in {course / 'grades.csv'}, "
        f"isolated records in {course / 'isolated'}/")
    log(f"full nbgrader log (autograde, generate_feedback, export): {logged}")
    return {"ids": ids, "records": records, "failed": failed, "log": logged}


def verify(course, ids, records):
    """{student: why} where the gradebook's auto scores are not the record's per-part points."""
    book = gradebook_points(course, ids, auto=True)
    failed = {}
    for student in ids:
        isolated = {p: v["score"] for p, v in records[student]["parts"].items()}
        autograded = course_notebook(course, "autograded", student)
        if book.get(student) is None or not autograded.exists():
            failed[student] = "nbgrader autograde failed for this submission (no autograded notebook / gradebook entry)"
            continue
        differ = compare({p: s for p, (s, _) in book[student].items()}, isolated)
        if differ:
            failed[student] = "gradebook differs from the isolated grade: " + ", ".join(
                f"{p} gradebook {'missing' if a is None else f'{a:g}'} isolated {'missing' if b is None else f'{b:g}'}"
                for p, a, b in differ)
    return failed


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m autograder.flows.nbgrader", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("course", nargs="?", default="build/course")
    parser.add_argument("--student", action="append", help="only this student (repeatable)")
    parser.add_argument("--feedback", choices=FEEDBACK_LEVELS, default=DEFAULT_FEEDBACK,
                        help="what the test cells show: score | checks | values | hints (default)")
    parser.add_argument("--install-kernel", action="store_true",
                        help=f"install the {KERNEL_NAME!r} kernel spec into this venv and exit")
    args = parser.parse_args(argv)
    if args.install_kernel:
        print(f"installed kernel {KERNEL_NAME!r}: {install_kernel()}")
        return 0
    result = autograde_course(args.course, args.student, args.feedback)
    for student in result["ids"]:
        record = result["records"][student]
        flag = "  NOT IN GRADEBOOK AS GRADED" if student in result["failed"] else ""
        print(f"  {student:<24}{record['score']:>6g} / {record['max_score']:g}{flag}")
    if result["failed"]:
        print(f"\nERROR: the gradebook does not hold the isolated grade of {len(result['failed'])} student(s):",
              file=sys.stderr)
        for student, why in result["failed"].items():
            print(f"  {student}: {why}", file=sys.stderr)
        print("Their isolated grades are in isolated/<student>/record.json; do not use the gradebook's "
              "points for them.", file=sys.stderr)
        return 1
    return 0
