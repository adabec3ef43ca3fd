"""`check-assignment`: is the current assignment ($AUTOGRADER_ASSIGNMENT) ready to hand out? One command, four checks.

    1. release   the assignment's own release (Assignment.release, what `release` runs): the instructor notebook
                 from the notebook source and the reference, the real `nbgrader generate_assignment`, the leak
                 check (no solution code, hidden tests, reference line or output in the student notebook), the
                 parts of the facts file, the notebook source and the suites agree, and no drift (the committed
                 generated files are what the sources generate; `release --update` rewrites them)
    2. reference the released student notebook with every solution cell of the instructor notebook put back,
                 graded by the real `grade` command (sandboxed worker, hidden suites): full marks
    3. blank     the released student notebook as students get it, graded the same way: 0
    4. totals    the points per part (a note when the total is not 100)

Exit 0 when all hold, 1 when one fails (each failure said), 2 when the assignment has no release module.
The two notebooks and their results.json stay in --out DIR when it is given.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import assignment
from ..assignment import ASSIGNMENT, NAME, NOTEBOOK_FILE, ROOT, STUDENT_NOTEBOOK, course_notebook
from ..plugin_api import ASSIGNMENT_VARIABLE

FULL_MARKS = 100.0
EXIT_FAILED, EXIT_NO_RELEASE = 1, 2


@dataclass(frozen=True)
class CheckOptions:
    out: str | None


def reference_notebook(student: Any, instructor: Any) -> Any:
    """The student notebook with each solution cell's source taken from the instructor notebook (same grade_id)."""
    answers = {cell.metadata["nbgrader"]["grade_id"]: cell.source for cell in instructor.cells
               if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution")}
    for cell in student.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution") and meta.get("grade_id") in answers:
            cell.source = answers[meta["grade_id"]]
    return student


def grade(notebook: Path, out: Path) -> tuple[dict | None, str]:
    """(results.json of the real `grade` command, or None; its stderr's tail)."""
    env = dict(os.environ, **{ASSIGNMENT_VARIABLE: ASSIGNMENT.package})
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(notebook), "--out", str(out)],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    if run.returncode != 0 or not out.is_file():
        return None, f"grade exited {run.returncode}:\n{run.stderr[-3000:]}"
    return json.loads(out.read_text()), ""


def by_part(result: dict) -> dict[str, tuple[float, float]]:
    """{part: (score, max)} of a results.json, parts in the assignment's order."""
    parts = {part: [0.0, 0.0] for part in ASSIGNMENT.part_ids}
    for test in result["tests"]:
        part = (test.get("tags") or ["?"])[0]
        parts.setdefault(part, [0.0, 0.0])
        parts[part][0] += test["score"]
        parts[part][1] += test["max_score"]
    return {part: (score, most) for part, (score, most) in parts.items()}


def _tests(result: dict, passed: bool) -> list[str]:
    return [f"{test['name']} ({test['score']:g} / {test['max_score']:g})" for test in result["tests"]
            if (test["score"] > 0 if passed else test["score"] < test["max_score"])]


def release() -> int:
    """The assignment's own release (Assignment.release: the module `release` runs), checking, never updating."""
    if not ASSIGNMENT.release:
        print(f"check-assignment: {ASSIGNMENT.package} names no release module (plugin_api.Assignment.release)",
              file=sys.stderr)
        return EXIT_NO_RELEASE
    code = importlib.import_module(ASSIGNMENT.release).main([])
    return int(code or 0)


def check(folder: Path) -> list[str]:
    """The checks after the release: [failure, ...] (empty: ready); prints what it finds."""
    import nbformat

    student = nbformat.read(STUDENT_NOTEBOOK, as_version=4)
    instructor = nbformat.read(course_notebook(assignment.COURSE), as_version=4)  # the release's
    notebooks = {"reference": reference_notebook(nbformat.read(STUDENT_NOTEBOOK, as_version=4), instructor),
                 "blank": student}
    for kind, notebook in notebooks.items():
        (folder / kind).mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, folder / kind / NOTEBOOK_FILE)
    with ThreadPoolExecutor(2) as pool:
        graded = dict(zip(notebooks, pool.map(lambda kind: grade(folder / kind / NOTEBOOK_FILE,
                                                                 folder / kind / "results.json"), notebooks)))
    failures = []
    for kind, (result, error) in graded.items():
        if result is None:
            failures.append(f"the {kind} notebook could not be graded: {error}")
    if failures:
        return failures
    reference, blank = graded["reference"][0], graded["blank"][0]
    assert reference is not None and blank is not None
    parts = by_part(reference)
    total = sum(most for _, most in parts.values())
    print(f"  points per part  {', '.join(f'{p} {most:g}' for p, (_, most) in parts.items())} (total {total:g})")
    print(f"  reference        {reference['score']:g} / {total:g}")
    print(f"  blank            {blank['score']:g} / {total:g}")
    if reference["score"] != total:
        failures.append("the reference notebook loses points, so the suites reject the reference answers:\n    "
                        + "\n    ".join(_tests(reference, passed=False)))
    if blank["score"] != 0:
        failures.append("the blank student notebook earns points (a test that a stub passes gives them away):\n    "
                        + "\n    ".join(_tests(blank, passed=True)))
    missing = [part for part, (_, most) in parts.items() if not most]
    if missing:
        failures.append(f"parts without points: {', '.join(missing)}")
    if total != FULL_MARKS:
        print(f"  note: the points add up to {total:g}, not {FULL_MARKS:g} (change @pytest.mark.points if unintended)")
    return failures


def run(options: CheckOptions) -> int:
    print(f"check-assignment: {ASSIGNMENT.package} ({NAME})")
    code = release()
    if code:
        print(f"check-assignment: the release of {NAME} is blocked (said above): leaks, parts that disagree or "
              "drift. Fix the sources, or run `release --update` after an intended change.", file=sys.stderr)
        return code if code == EXIT_NO_RELEASE else EXIT_FAILED
    print("  release          no leaks, the parts agree, the committed files are current")
    if options.out:
        failures = check(Path(options.out).resolve())
    else:
        with tempfile.TemporaryDirectory(prefix=f"check-{NAME}-") as folder:
            failures = check(Path(folder))
    for failure in failures:
        print(f"check-assignment: {failure}", file=sys.stderr)
    if failures:
        return EXIT_FAILED
    print(f"{NAME}: ready (no leaks, no drift, reference full marks, blank 0)")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check-assignment", help="release the current assignment (no leaks, no drift) and grade its reference "
                                 "(full marks) and blank (0) notebooks (docs/authoring.md)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", metavar="DIR", help="keep the reference and blank notebooks and their results.json "
                                                     "here (default: a temporary folder, removed)")
    parser.set_defaults(handler=run, options=CheckOptions)
