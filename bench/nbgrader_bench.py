"""bench.py's nbgrader rows: the plain `nbgrader autograde` of our course against stock nbgrader, side by side.

Three copies of the bench course, each holding the same few students' submissions:

  ours    this package's course (nbgrader_config.py with the install's two lines): each submission
          graded in the sandbox by the course's grading service, nbgrader runs kernel week7-isolated
  stock   nbgrader's defaults, test cells running the hidden suites in the student's `python3` kernel
          (bench/stock_cell.py): what a course without this package pays
  floor   nbgrader's defaults, test cells doing nothing: executing the notebook in a `python3`
          kernel, nbgrader's own floor for this notebook

Each is timed as one call for the group and as one call per student (`--student`), the three
taking turns. Ours starts with no service and no record (the group call pays the service's
start); the per-student calls find the service warm, as the formgrader's Autograde button does
after the first; one more call times a single student with the service cold. Our records are
removed before each call, so every submission is really graded.
"""
from __future__ import annotations

import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from autograder.assignment import NAME as ASSIGNMENT

RETIRED_HOOK = "from autograder.flows.nbgrader_cell import grade_part"  # the release's test-cell hook line
HOOKS = {"stock": "from stock_cell import grade_part",
         "floor": "grade_part = lambda part, namespace: None  # nbgrader's floor: no checks"}


def _copy(course: Path, target: Path, students: list[str]) -> Path:
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(course, target, ignore=shutil.ignore_patterns("isolated", "autograded", "feedback", "logs"))
    for folder in (target / "submitted").iterdir():
        if folder.name not in students:
            shutil.rmtree(folder)
    return target


def stock_course(course: Path, target: Path, students: list[str], env: dict, kind: str) -> Path:
    """A copy graded the stock nbgrader way (nbgrader's defaults), its test cells' hook replaced (HOOKS[kind])."""
    _copy(course, target, students)
    (target / "nbgrader_config.py").write_text(
        "c = get_config()  # noqa: F821\n"
        f"c.CourseDirectory.root = {str(target)!r}\n"
        "c.CourseDirectory.course_id = 'week7'\n"
        f"c.CourseDirectory.db_assignments = [dict(name={ASSIGNMENT!r})]\n"
        "c.Execute.timeout = 240\n")
    # The gradebook's copy of the test cells is what autograde restores into every submission (and its
    # kernelspec, python3 here): regenerate both from a source whose hook line is HOOKS[kind].
    source = target / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    text = source.read_text()
    if RETIRED_HOOK not in text:
        raise SystemExit(f"bench: the release's test-cell hook changed; update bench/nbgrader_bench.py ({RETIRED_HOOK!r})")
    source.write_text(text.replace(RETIRED_HOOK, HOOKS[kind]))
    subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force"], cwd=target,
                   env=env, check=True, capture_output=True)
    return target


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _autograde(course: Path, env: dict, *args: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of nbgrader and its kernels: our grading service is not a child, not counted)."""
    start, cpu = time.perf_counter(), _cpu()
    run = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT, "--force", *args], cwd=course,
                         env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if run.returncode != 0:
        raise SystemExit(f"nbgrader autograde {' '.join(args)} failed in {course}:\n{run.stdout[-2000:]}\n"
                         f"{run.stderr[-4000:]}")
    return seconds, _cpu() - cpu


def _no_records(course: Path, *students: str) -> None:
    for student in students or [p.name for p in (course / "isolated").glob("*") if p.is_dir()]:
        shutil.rmtree(course / "isolated" / student, ignore_errors=True)


def measure(course: Path, workdir: Path, students: list[str], stock_env: dict, our_env: dict, log=print) -> dict:
    """{kind: {"group", "cpu_group": s per student, "each", "cpu_each": [s per call], "cold": s (ours)}, "courses"}.

    The three kinds take turns (group calls one after the other, then each student through all three), so
    that a busy spell of the shared machine does not fall on one of them only."""
    from autograder.flows.nbgrader import client

    courses = {"ours": _copy(course, workdir / "course-ours", students),
               "stock": stock_course(course, workdir / "course-stock", students, stock_env, "stock"),
               "floor": stock_course(course, workdir / "course-floor", students, stock_env, "floor")}
    envs = {kind: our_env if kind == "ours" else stock_env for kind in courses}
    out = {"courses": courses, **{kind: {"each": [], "cpu_each": []} for kind in courses}}
    client.stop(courses["ours"])  # ours starts with nothing warm and no record
    _no_records(courses["ours"])
    for kind, path in courses.items():
        seconds, cpu = _autograde(path, envs[kind])
        out[kind].update(group=seconds / len(students), cpu_group=cpu / len(students))
    for student in students:
        for kind, path in courses.items():
            if kind == "ours":
                _no_records(path, student)  # graded again, by the warm service
            seconds, cpu = _autograde(path, envs[kind], "--student", student)
            out[kind]["each"].append(seconds)
            out[kind]["cpu_each"].append(cpu)
    ours = courses["ours"]
    client.stop(ours)  # one student with nothing warm: the service starts for it
    _no_records(ours, students[0])
    out["ours"]["cold"] = _autograde(ours, envs["ours"], "--student", students[0])[0]
    client.stop(ours)
    for kind in courses:
        log(f"  nbgrader autograde, {kind}: {out[kind]['group']:.2f} s per student for the group, "
            f"{[round(x, 2) for x in out[kind]['each']]} s one by one"
            + (f", {out[kind]['cold']:.2f} s cold" if kind == "ours" else ""))
    return out
