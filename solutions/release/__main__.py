"""`make release`: build the nbgrader course, generate the student notebook, check it.

    python -m solutions.release            build, check for leaks, fail on drift
    python -m solutions.release --update   ... and rewrite the committed student notebook
    python -m solutions.release --source-only   only write the instructor notebook
"""
import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from autograder.engine.catalog import part_points
from autograder.assignment import (COURSE, INSTRUCTOR_NOTEBOOK as SOURCE_NB, NAME as ASSIGNMENT, ROOT,
                                   STUDENT_NOTEBOOK as STUDENT_NB, course_notebook)
from solutions.release.build import build_source_notebook, drop_instructor_note, write
from solutions.release.leaks import find_leaks


def venv_env():
    """nbgrader runs helper programs (alembic) by name: put this interpreter's bin first on PATH."""
    bin_dir = os.path.dirname(sys.executable)
    return dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))


def build_course(course=COURSE):
    """Write the course directory and run the real `nbgrader generate_assignment`; return the release."""
    points = part_points()
    source = course_notebook(course)
    write(build_source_notebook(points), source)
    shutil.copy(Path(__file__).with_name("nbgrader_config.py"), course / "nbgrader_config.py")
    run = subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force"],
                         cwd=course, capture_output=True, text=True, env=venv_env())
    if run.returncode != 0:
        raise SystemExit(f"nbgrader generate_assignment failed:\n{run.stdout}\n{run.stderr}")
    # nbgrader's release/ copy (what its exchange hands out) is the student's too: no instructor banner.
    release_nb = course_notebook(course, "release")
    released = drop_instructor_note(nbformat.read(release_nb, as_version=4))
    write(released, release_nb)
    return points, released


def _show(path):
    path = Path(path)
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def student_text(released):
    return nbformat.writes(released) + "\n"


def main(argv=None, course=COURSE, student_nb=STUDENT_NB):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--update", action="store_true", help="rewrite the committed student notebook")
    parser.add_argument("--source-only", action="store_true", help="only build the instructor notebook")
    args = parser.parse_args(argv)
    if args.source_only:
        write(build_source_notebook(part_points()), SOURCE_NB)
        print(f"instructor notebook: {SOURCE_NB.relative_to(ROOT)}")
        return 0
    points, released = build_course(course)
    source_nb = course_notebook(course)
    problems = find_leaks(released, nbformat.read(source_nb, as_version=4))
    if problems:
        print("RELEASE BLOCKED: the student notebook would leak:", *problems, sep="\n  ", file=sys.stderr)
        return 1
    text = student_text(released)
    committed = student_nb.read_text() if student_nb.exists() else None
    if text != committed:
        if not args.update:
            print(f"RELEASE BLOCKED: {_show(student_nb)} differs from what the sources generate.\n"
                  "  Run `make release UPDATE=1` to regenerate it, review the diff, and commit.", file=sys.stderr)
            return 1
        student_nb.parent.mkdir(parents=True, exist_ok=True)
        student_nb.write_text(text)
        print(f"updated {_show(student_nb)}: review `git diff` and commit it")
    print("Release ready.")
    print(f"  points per part        {', '.join(f'{p} {v:g}' for p, v in points.items())} "
          f"(total {sum(points.values()):g}; written answers are graded by hand on top)")
    print(f"  instructor notebook    {_show(source_nb)}")
    print(f"  nbgrader course        {_show(course)}/ (nbgrader_config.py, gradebook.db)")
    print(f"  nbgrader release       {_show(course_notebook(course, 'release'))}")
    print(f"  student notebook       {_show(student_nb)} (committed; no solutions, no hidden tests)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
