"""`make nbgrader-autograde`: the plain nbgrader commands for this assignment, watched and checked.

    python -m autograder.flows.nbgrader COURSE_DIR [--student ID ...] [--feedback LEVEL]

A convenience, never a requirement: in a course whose nbgrader_config.py loads this
assignment's grading (config.py; `python -m autograder install-nbgrader` adds it),
`nbgrader autograde week7_attention` alone gives the sandboxed grades. This runs it with
--force (a progress bar over the students, nbgrader's whole output kept in
COURSE/logs/nbgrader-<timestamp>.log), then checks that the gradebook's per-part points
are the sandboxed records' (any student nbgrader failed on, or whose points differ, is
reported and the command exits 1), then `nbgrader generate_feedback` (hidden tests
removed) and `nbgrader export` (grades.csv).
"""
import argparse
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from ...assignment import course_notebook
from ...settings import FEEDBACK_LEVELS, feedback_help
from . import ASSIGNMENT, CURRENT, Graded, part_of
from .kernelspec import check_kernel, install_kernel, jupyter_env

TOLERANCE = 1e-6
CONFIG_LINE = re.compile(r"^\s*grade_in_sandbox\(c\)", re.M)  # what install-nbgrader writes (install.py)


# Any line install-nbgrader writes for a package other than the default: its group 1 is the package's dotted name.
PACKAGE_LINE = re.compile(r"^\s*grade_in_sandbox\(c,\s*['\"]([\w.]+)['\"]\s*\)", re.M)


def config_line(package: str | None = None) -> re.Pattern[str]:
    """The line install-nbgrader writes for ``package`` (None: the default one, `grade_in_sandbox(c)`)."""
    if package is None:
        return CONFIG_LINE
    return re.compile(rf"^\s*grade_in_sandbox\(c,\s*(['\"]){re.escape(package)}\1\s*\)", re.M)


def nbgrader_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    return dict(jupyter_env(base), MPLBACKEND="Agg", OMP_NUM_THREADS="1", PYTHONHASHSEED="0")


def log_path(course: str | os.PathLike[str]) -> Path:
    """COURSE/logs/nbgrader-<timestamp>.log: a new file for each run of the flow."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = Path(course) / "logs" / f"nbgrader-{stamp}.log"
    n = 1
    while path.exists():
        n += 1
        path = path.with_name(f"nbgrader-{stamp}-{n}.log")
    return path


def nbgrader(course: str | os.PathLike[str], *args: str, check: bool = True,
             log_file: str | os.PathLike[str] | None = None,
             on_line: Callable[[str], object] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `nbgrader ARGS` in the course; its whole output is appended to ``log_file`` when given, and each
    line of it is passed to ``on_line`` as it comes (for a progress bar)."""
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    process = subprocess.Popen([sys.executable, "-m", "nbgrader", *args], cwd=course, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace", env=nbgrader_env())
    assert process.stdout is not None  # stdout=PIPE
    lines: list[str] = []
    for line in process.stdout:
        lines.append(line)
        if on_line is not None:
            on_line(line)
    process.wait()
    output = "".join(lines)
    if log_file is not None:
        Path(log_file).parent.mkdir(parents=True, exist_ok=True)
        with open(log_file, "a", encoding="utf-8") as handle:
            handle.write(f"===== {started}  nbgrader {' '.join(args)}  (exit {process.returncode})\n")
            handle.write(output + ("" if output.endswith("\n") or not output else "\n"))
    run = subprocess.CompletedProcess(process.args, process.returncode, output, output)
    if check and run.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed (exit {run.returncode}):\n{output[-8000:]}"
                           + (f"\nfull nbgrader log: {log_file}" if log_file else ""))
    return run


def students(course: str | os.PathLike[str], name: str = ASSIGNMENT) -> list[str]:
    root = Path(course) / "submitted"
    return sorted(p.parent.name for p in root.glob(f"*/{name}") if p.is_dir() or p.is_symlink())


def gradebook_points(course: str | os.PathLike[str], student_ids: Sequence[str] | None = None, auto: bool = False,
                     assignment: Graded = CURRENT) -> dict[str, dict[str, tuple[float | None, float]] | None]:
    """{student: {part: (score or None, max_score)}} of the autograder test cells, from the gradebook.

    None for a student with no submission in the gradebook; a score is None when the grade
    is empty (never autograded), never a silent 0. ``auto``: nbgrader's auto_score only
    (what autograde wrote), else the final score (a manual override wins). ``assignment``: which one (default:
    the current assignment)."""
    from nbgrader.api import Gradebook, MissingEntry

    course, name = Path(course).resolve(), assignment.name
    points: dict[str, dict[str, tuple[float | None, float]] | None] = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in student_ids or students(course, name):
            try:
                notebook = gradebook.find_submission_notebook(name, name, student)
            except MissingEntry:
                points[student] = None
                continue
            parts: dict[str, tuple[float | None, float]] = {}
            for g in notebook.grades:
                part = part_of(g.name, assignment.parts)
                if part:
                    value = g.auto_score if auto or g.manual_score is None else g.manual_score
                    parts[part] = (None if value is None else float(value), float(g.max_score))
            points[student] = parts
    return points


def compare(gradebook: Mapping[str, float | None],
            isolated: Mapping[str, float | None]) -> list[tuple[str, float | None, float | None]]:
    """[(part, gradebook score, isolated score)] where they differ; a missing score counts as None."""
    out: list[tuple[str, float | None, float | None]] = []
    for part in sorted(set(gradebook) | set(isolated)):
        ours, theirs = gradebook.get(part), isolated.get(part)
        if ours is None or theirs is None or abs(ours - theirs) > TOLERANCE:
            out.append((part, ours, theirs))
    return out


def verify(course: str | os.PathLike[str], ids: Sequence[str]) -> dict[str, str]:
    """{student: why} where the gradebook's auto scores are not the sandboxed record's per-part points."""
    from .record import load_record

    book = gradebook_points(course, ids, auto=True)
    failed: dict[str, str] = {}
    for student in ids:
        record, graded = load_record(course, student), book.get(student)
        autograded = course_notebook(course, "autograded", student)  # type: ignore[no-untyped-call]  # not annotated
        if record is None or graded is None or not autograded.exists():
            failed[student] = "nbgrader autograde failed for this submission (no autograded notebook, gradebook " \
                              "entry or sandboxed record)"
            continue
        differ = compare({p: s for p, (s, _) in graded.items()},
                         {p: v["score"] for p, v in record["parts"].items()})
        if differ:
            failed[student] = "gradebook differs from the sandboxed grade: " + ", ".join(
                f"{p} gradebook {'missing' if a is None else f'{a:g}'} isolated {'missing' if b is None else f'{b:g}'}"
                for p, a, b in differ)
    return failed


def loads_our_config(course: str | os.PathLike[str], package: str | None = None) -> bool:
    """True when COURSE/nbgrader_config.py holds the line that grades this assignment (``package``: that one; None:
    the default line) in the sandbox."""
    try:
        return bool(config_line(package).search((Path(course) / "nbgrader_config.py").read_text()))
    except OSError:
        return False


class Autograded(TypedDict):
    """What autograde_course returns."""
    ids: list[str]
    failed: dict[str, str]  # {student: why} of every student whose gradebook does not hold the sandboxed grade
    log: Path | None  # nbgrader's whole output; None when there was nothing to grade


class Watch:
    """A progress bar over the students of one run, moved by nbgrader's own "Sanitizing" lines."""

    SANITIZING = re.compile(rf"Sanitizing .*[/\\]([^/\\]+)[/\\]{re.escape(ASSIGNMENT)}[/\\]")

    def __init__(self, total: int) -> None:
        from .. import progress

        self.progress, self.bar = progress, progress.bar(total, ASSIGNMENT)
        self.current: str | None = None

    def line(self, text: str) -> None:
        match = self.SANITIZING.search(text)
        if match:
            self.done()
            self.current = match.group(1)
            self.progress.now(self.bar, self.current)

    def done(self) -> None:
        if self.current is not None:
            self.bar.update(1)
            self.current = None

    def close(self) -> None:
        self.done()
        self.bar.close()


def autograde_course(course: str | os.PathLike[str], student_ids: Sequence[str] | None = None, level: str | None = None,
                     log: Callable[[str], object] = print) -> Autograded:
    """Autograde, verify, feedback, export. Returns {"ids", "failed", "log"}; ``failed``: {student: why} of
    every student whose gradebook does not hold the sandboxed grade (empty when all is well)."""
    course = Path(course).resolve()
    if not loads_our_config(course):
        raise SystemExit(f"{course}/nbgrader_config.py does not grade {ASSIGNMENT} in the sandbox: run "
                         f"`python -m autograder install-nbgrader {course}` once")
    ids = list(student_ids or students(course))
    if not ids:
        log(f"no submissions under {course / 'submitted'}/<student>/{ASSIGNMENT}/")
        return {"ids": [], "failed": {}, "log": None}
    check_kernel(kernel=CURRENT.kernel)
    logged = log_path(course)
    log(f"nbgrader autograde {ASSIGNMENT}: {len(ids)} submission(s), each graded in the sandbox; "
        f"full nbgrader log: {logged}")
    options = [f"--SandboxGrading.feedback={level}"] if level else []
    watch = Watch(len(ids))
    try:
        runs = [nbgrader(course, "autograde", ASSIGNMENT, "--force", *options, check=False, log_file=logged,
                         on_line=watch.line)] if student_ids is None else \
            [nbgrader(course, "autograde", ASSIGNMENT, "--force", "--student", s, *options, check=False,
                      log_file=logged, on_line=watch.line) for s in ids]
    finally:
        watch.close()
    failed = verify(course, ids)
    if failed:
        errors = "\n".join(r.stdout[-6000:] for r in runs if r.returncode != 0)
        log(f"nbgrader autograde exit status {max(r.returncode for r in runs)}\n{errors}\n"
            f"(the full nbgrader log: {logged})")
    if len(failed) < len(ids):  # nbgrader itself fails when no notebook was autograded
        if student_ids is None:
            nbgrader(course, "generate_feedback", ASSIGNMENT, "--force", log_file=logged)
        for student in student_ids or ():
            if student not in failed:
                nbgrader(course, "generate_feedback", ASSIGNMENT, "--force", "--student", student, log_file=logged)
    nbgrader(course, "export", log_file=logged)
    log(f"feedback in {course / 'feedback'}/, grades in {course / 'grades.csv'}, "
        f"sandboxed records in {course / CURRENT.records}/")
    log(f"full nbgrader log (autograde, generate_feedback, export): {logged}")
    return {"ids": ids, "failed": failed, "log": logged}


@dataclass(frozen=True)
class CourseOptions:
    """The flow's options (what it grades with is the course's: c.SandboxGrading in nbgrader_config.py)."""
    course: str
    student: list[str] | None
    feedback: str | None
    install_kernel: bool


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder.flows.nbgrader", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.set_defaults(handler=run, options=CourseOptions)
    parser.add_argument("course", nargs="?", default="build/course")
    parser.add_argument("--student", action="append", help="only this student (repeatable)")
    parser.add_argument("--feedback", choices=FEEDBACK_LEVELS, default=None,
                        help=f"{feedback_help()}; default: the course's c.SandboxGrading.feedback")
    parser.add_argument("--install-kernel", action="store_true",
                        help=f"install the {CURRENT.kernel!r} kernel spec into this venv and exit")
    return parser


def main(argv: list[str] | None = None) -> int:
    from ...command_line import run as run_command

    return run_command(parser(), argv, "nbgrader")


def run(options: CourseOptions) -> int:
    if options.install_kernel:
        print(f"installed kernel {CURRENT.kernel!r}: {install_kernel(kernel=CURRENT.kernel)}")
        return 0
    from .record import load_record

    result = autograde_course(options.course, options.student, options.feedback)
    for student in result["ids"]:
        record = load_record(options.course, student) or {}
        flag = "  NOT IN GRADEBOOK AS GRADED" if student in result["failed"] else ""
        print(f"  {student:<24}{record.get('score', float('nan')):>6g} / {record.get('max_score', 0):g}{flag}")
    if result["failed"]:
        print(f"\nERROR: the gradebook does not hold the sandboxed grade of {len(result['failed'])} student(s):",
              file=sys.stderr)
        for student, why in result["failed"].items():
            print(f"  {student}: {why}", file=sys.stderr)
        print("Their sandboxed grades (if any) are in isolated/<student>/record.json; do not use the gradebook's "
              "points for them.", file=sys.stderr)
        return 1
    return 0
