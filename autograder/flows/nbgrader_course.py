"""Run the real nbgrader pipeline on a course directory: autograde, feedback, export.

    python -m autograder.flows.nbgrader_course COURSE_DIR     (what `make nbgrader-autograde` runs)

Every `COURSE_DIR/submitted/<student>/week7_attention/` is autograded by `nbgrader
autograde` (the notebook runs in a Jupyter kernel with GRADING=1, each graded cell runs
its part's hidden suite through `grade_part`), then `nbgrader generate_feedback` writes
the HTML feedback (hidden tests and graded-cell tracebacks removed by `HideHiddenTests`)
and `nbgrader export` writes COURSE_DIR/grades.csv. The traps nbgrader sets are handled
in solutions/release/nbgrader_config.py; this module holds the code that config names.
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from nbgrader.preprocessors import NbGraderPreprocessor, OverwriteCells

from .. import PARTS

ASSIGNMENT = "week7_attention"
KERNEL = "python3"
BEGIN, END = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"


def part_of(grade_id):
    """The part a graded cell belongs to (its grade_id is `<part>_tests`), or None."""
    part = grade_id[:-len("_tests")] if grade_id.endswith("_tests") else None
    return part if part in PARTS else None


class HideHiddenTests(NbGraderPreprocessor):
    """Feedback only: drop hidden-test regions and internal tracebacks from autograder test cells.

    nbgrader's feedback is the autograded notebook as HTML, and at autograde time the
    test cells were restored from the instructor notebook (hidden tests included). The
    student keeps the cell's printed result; a cell that raised keeps only `Name: message`.
    """

    def preprocess_cell(self, cell, resources, index):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
            return cell, resources
        kept, hiding = [], False
        for line in cell.source.splitlines():
            if BEGIN in line:
                hiding = True
            elif END in line:
                hiding = False
            elif not hiding:
                kept.append(line)
        cell.source = "\n".join(kept).rstrip()
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources


class RestoreDeletedCells(OverwriteCells):
    """OverwriteCells whose `add_missing_cells` works for this notebook.

    nbgrader 0.9.6 puts a missing test cell after the cell that precedes it in the source,
    but only indexes the submission's grade and solution cells: when that cell is a
    read-only one (here every test cell follows a `check` cell) autograde dies with a
    KeyError, and its index arithmetic drifts after the first insertion. Here a missing
    test cell goes right after the nearest preceding source cell still in the submission.
    """

    def add_missing_grade_cells(self, nb, resources):
        source = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
        cells = {c.name: c for c in source.source_cells}
        order = [c.name for c in source.source_cells]
        grades = {c.name: c for c in source.grade_cells}
        solutions = {c.name for c in source.solution_cells}
        for name in order:
            present = {c.metadata.get("nbgrader", {}).get("grade_id"): i for i, c in enumerate(nb.cells)}
            if name not in grades or name in present:
                continue
            self.log.warning("Missing grade cell %s encountered, adding to notebook", name)
            cell = self.missing_cell_transform(cells[name], grades[name].max_score, is_solution=name in solutions)
            before = [present[n] for n in order[:order.index(name)] if n in present]
            nb.cells.insert(before[-1] + 1 if before else 0, cell)
        return nb, resources


def nbgrader_env(base=None):
    """Environment for nbgrader: this interpreter's bin first on PATH (nbgrader runs `alembic`),
    its Jupyter data first (so kernel `python3` is this venv's), and grading mode for the kernel."""
    env = dict(base if base is not None else os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    jupyter = os.path.join(sys.prefix, "share", "jupyter")
    env["JUPYTER_PATH"] = jupyter + (os.pathsep + env["JUPYTER_PATH"] if env.get("JUPYTER_PATH") else "")
    env.update(GRADING="1", MPLBACKEND="Agg", OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    return env


def check_kernel(env=None):
    """Fail early, with the fix, unless kernel `python3` runs an interpreter that can import the grader."""
    code = ("import json, jupyter_client.kernelspec as k; s = k.KernelSpecManager().get_kernel_spec("
            f"{KERNEL!r}); print(json.dumps(s.argv))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env or nbgrader_env())
    if run.returncode != 0:
        raise SystemExit(f"Jupyter kernel {KERNEL!r} not found; run `make install`.\n{run.stderr[-2000:]}")
    python = json.loads(run.stdout)[0]
    probe = subprocess.run([python, "-c", "import autograder.flows.nbgrader_cell"], capture_output=True, text=True,
                           env=env or nbgrader_env())
    if probe.returncode != 0:
        raise SystemExit(f"kernel {KERNEL!r} runs {python}, which cannot import the grader; run `make install`.\n"
                         f"{probe.stderr[-2000:]}")
    return python


def students(course):
    root = Path(course) / "submitted"
    return sorted(p.parent.name for p in root.glob(f"*/{ASSIGNMENT}") if p.is_dir())


def nbgrader(course, *args, check=True):
    run = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, capture_output=True, text=True,
                         env=nbgrader_env())
    if check and run.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed (exit {run.returncode}):\n"
                           f"{run.stdout[-4000:]}\n{run.stderr[-8000:]}")
    return run


def autograde_course(course, student_ids=None, log=print):
    """Autograde, generate feedback and export for every submitted student; return the student ids."""
    course = Path(course).resolve()
    if not (course / "nbgrader_config.py").exists():
        raise SystemExit(f"{course} is not an nbgrader course (no nbgrader_config.py); run `make release`")
    ids = student_ids or students(course)
    if not ids:
        log(f"no submissions under {course / 'submitted'}/<student>/{ASSIGNMENT}/")
        return []
    check_kernel()
    log(f"autograding {len(ids)} submission(s): {', '.join(ids)}")
    # One nbgrader process for all of them (it starts slowly); it goes on past a broken submission.
    runs = [nbgrader(course, "autograde", ASSIGNMENT, "--force", check=False)] if student_ids is None else \
        [nbgrader(course, "autograde", ASSIGNMENT, "--force", "--student", s, check=False) for s in ids]
    run = max(runs, key=lambda r: r.returncode)
    autograded = course / "autograded"
    failed = [s for s in ids if not (autograded / s / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").exists()]
    if run.returncode != 0 or failed:
        log(f"nbgrader autograde reported errors (exit {run.returncode}) for: {', '.join(failed) or '?'}\n"
            f"{run.stderr[-6000:]}")
    nbgrader(course, "generate_feedback", ASSIGNMENT, "--force")
    nbgrader(course, "export")
    log(f"feedback in {course / 'feedback'}/, grades in {course / 'grades.csv'}")
    if failed:
        raise SystemExit(f"nbgrader autograde failed for: {', '.join(failed)}")
    return ids


def gradebook_points(course, student_ids=None):
    """{student: {part: (score, max_score)}} of the autograder test cells, from the gradebook."""
    from nbgrader.api import Gradebook, MissingEntry

    course = Path(course).resolve()
    points = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in student_ids or students(course):
            try:
                notebook = gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
            except MissingEntry:
                points[student] = None  # never autograded
                continue
            points[student] = {part_of(g.name): (float(g.score or 0.0), float(g.max_score))
                               for g in notebook.grades if part_of(g.name)}
    return points


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m autograder.flows.nbgrader_course", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("course", nargs="?", default="build/course")
    parser.add_argument("--student", action="append", help="only this student (repeatable)")
    args = parser.parse_args(argv)
    ids = autograde_course(args.course, args.student)
    for student, parts in gradebook_points(args.course, ids).items():
        total = sum(s for s, _ in parts.values()) if parts else 0.0
        top = sum(m for _, m in parts.values()) if parts else 0.0
        print(f"  {student:<24}{total:>6g} / {top:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
