"""`make release`: build the nbgrader course, generate the student notebook and the student-CI parts file, check them.

    python -m solutions.release            build, check for leaks, fail on drift
    python -m solutions.release --update   ... and rewrite the committed generated files
    python -m solutions.release --source-only   only write the instructor notebook

The committed generated files: the student notebook (assignments/) and the student-CI template's
parts.json (functions, points and public checks per part; solutions/release/student_ci.py).

From an installed package (`autograder release`) the course goes to the working directory's build/,
and the student notebook the package ships is checked against the sources (there is no checkout to
update, and no student-CI template).
"""
import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from autograder.engine.catalog import part_points
from autograder.assignment import (COURSE, INSTALLED, INSTRUCTOR_NOTEBOOK as SOURCE_NB, NAME as ASSIGNMENT, ROOT,
                                   STUDENT_NOTEBOOK as STUDENT_NB, course_notebook)
from solutions.release.build import SourceMismatch, build_source_notebook, drop_instructor_note, write
from solutions.release.leaks import find_leaks
from solutions.release.student_ci import CI_PARTS, parts_text


def venv_env():
    """nbgrader runs helper programs (alembic) by name: put this interpreter's bin first on PATH."""
    bin_dir = os.path.dirname(sys.executable)
    return dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))


def refresh_config(course: Path) -> None:
    """COURSE/nbgrader_config.py from this package's template, keeping each assignment package an earlier release
    (of another assignment) registered with its own line: a release that dropped those lines would leave that
    assignment's notebooks to nbgrader's own kernel (guide trial, 2026-12-05). A package that can no longer be
    imported loses its line, said on stderr."""
    from autograder.flows.nbgrader import graded
    from autograder.flows.nbgrader.course import PACKAGE_LINE
    from autograder.flows.nbgrader.install import add_config

    config = course / "nbgrader_config.py"
    earlier = PACKAGE_LINE.findall(config.read_text()) if config.is_file() else []
    shutil.copy(Path(__file__).with_name("nbgrader_config.py"), config)
    for package in earlier:
        try:
            add_config(course, graded(package))
        except ImportError:
            print(f"  {config}: {package} is no longer importable; its line is dropped", file=sys.stderr)


def build_course(course=COURSE, own_config=True, step=lambda name: None):
    """Write the course directory and run the real `nbgrader generate_assignment`; return the release.

    ``own_config``: write this package's nbgrader_config.py (build/course: it grades week 7 and week 6 in the
    sandbox, each by its package; any other current assignment gets its two lines added) and install the current
    assignment's isolated kernel spec if missing (`make install` installs the default one's); False for an instructor's course, whose config install-nbgrader has
    completed. ``step(name)`` is called as each step starts. Every assignment goes into the same course folder."""
    step("instructor notebook")
    points = part_points()
    source = course_notebook(course)
    write(build_source_notebook(points), source)
    if own_config:
        from autograder.flows.nbgrader import CURRENT
        from autograder.flows.nbgrader.install import add_config
        from autograder.flows.nbgrader.kernelspec import install_kernel, kernel_spec_path

        refresh_config(course)
        add_config(course, CURRENT)  # already there for week 7 and week 6
        if not kernel_spec_path(kernel=CURRENT.kernel).exists():  # the default assignment's: `make install`'s
            install_kernel(kernel=CURRENT.kernel)
    step("nbgrader generate_assignment")
    run = subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force"],
                         cwd=course, capture_output=True, text=True, env=venv_env())
    if run.returncode != 0:
        raise SystemExit(f"nbgrader generate_assignment failed:\n{run.stdout}\n{run.stderr}")
    # nbgrader's release/ copy (what its exchange hands out) is the student's too: no instructor banner.
    release_nb = course_notebook(course, "release")
    released = drop_instructor_note(nbformat.read(release_nb, as_version=4))
    write(released, release_nb)
    return points, released


class Steps:
    """The release's steps on grade-all's progress bar (autograder/flows/progress.py): done / total, the current one."""

    def __init__(self, names):
        self.names = names

    def __enter__(self):
        from autograder.flows import progress

        self.progress, self.bar, self.started = progress, progress.bar(len(self.names), "release", unit="step"), 0
        return self

    def __call__(self, name):
        """``name`` starts: the one before it is done."""
        if self.started:
            self.bar.update(1)
        self.started += 1
        self.progress.now(self.bar, name)

    def finish(self):
        self.bar.update(self.bar.total - self.bar.n)

    def __exit__(self, *exc_info):
        self.bar.close()


def _show(path):
    """A path as the instructor reads it: relative to the checkout (installed: to the current directory)."""
    path, base = Path(path), Path.cwd() if INSTALLED else ROOT
    return path.relative_to(base) if path.is_relative_to(base) else path


def student_text(released):
    return nbformat.writes(released) + "\n"


def _update_command() -> str:
    """The command that regenerates the current assignment's files: `make release UPDATE=1` releases week 7 and week
    6 unless AUTOGRADER_ASSIGNMENT names one (a new assignment's release must say so)."""
    from autograder.plugin_api import ASSIGNMENT_VARIABLE, DEFAULT_ASSIGNMENT
    from autograder.assignment import ASSIGNMENT as CURRENT_ASSIGNMENT

    if CURRENT_ASSIGNMENT.package == DEFAULT_ASSIGNMENT:
        return "make release UPDATE=1"
    return f"{ASSIGNMENT_VARIABLE}={CURRENT_ASSIGNMENT.package} make release UPDATE=1"


def main(argv=None, course=COURSE, student_nb=STUDENT_NB, ci_parts=CI_PARTS):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--update", action="store_true",
                        help="rewrite the committed generated files (student notebook, student-CI parts.json)")
    parser.add_argument("--source-only", action="store_true", help="only build the instructor notebook")
    args = parser.parse_args(argv)
    if args.update and INSTALLED:
        print("release --update rewrites the committed files of a checkout; this is an installed package "
              f"({ROOT}): run it in the repository", file=sys.stderr)
        return 2
    if args.source_only:
        try:
            write(build_source_notebook(part_points()), SOURCE_NB)
        except SourceMismatch as err:
            print(f"RELEASE BLOCKED: {err}", file=sys.stderr)
            return 1
        print(f"instructor notebook: {_show(SOURCE_NB)}")
        return 0
    blocked = ""  # said once the progress bar is closed
    with Steps(["instructor notebook", "nbgrader generate_assignment", "leak check", "generated files"]) as step:
        try:
            points, released = build_course(course, step=step)
            step("leak check")
            source = nbformat.read(course_notebook(course), as_version=4)
            problems = find_leaks(released, source)
            if problems:
                blocked = "\n  ".join(["the student notebook would leak:", *problems])
            else:
                step("generated files")
                generated = {student_nb: student_text(released)}
                if not INSTALLED and ci_parts is not None:  # the student-CI template lives in the checkout only
                    generated[ci_parts] = parts_text(points, source)
                step.finish()
        except SourceMismatch as err:
            blocked = str(err)
    if blocked:
        print(f"RELEASE BLOCKED: {blocked}", file=sys.stderr)
        return 1
    stale = [path for path, text in generated.items() if (path.read_text() if path.exists() else None) != text]
    if stale and not args.update:
        print(f"RELEASE BLOCKED: {', '.join(str(_show(p)) for p in stale)} "
              f"{'differs' if len(stale) == 1 else 'differ'} from what the sources generate.\n"
              f"  Run `{_update_command()}` to regenerate, review the diff, and commit.", file=sys.stderr)
        return 1
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(generated[path])
        print(f"updated {_show(path)}: review `git diff` and commit it")
    source_nb = course_notebook(course)
    print("Release ready.")
    from autograder.flows.written.extract import has_questions
    by_hand = "; written answers are graded by hand on top" if has_questions(student_nb) else ""
    print(f"  points per part        {', '.join(f'{p} {v:g}' for p, v in points.items())} "
          f"(total {sum(points.values()):g}{by_hand})")
    print(f"  instructor notebook    {_show(source_nb)}")
    print(f"  nbgrader course        {_show(course)}/ (nbgrader_config.py, gradebook.db)")
    print(f"  nbgrader release       {_show(course_notebook(course, 'release'))}")
    print(f"  student notebook       {_show(student_nb)} (committed; no solutions, no hidden tests)")
    if ci_parts in generated:
        print(f"  student CI parts       {_show(ci_parts)} (committed; functions, points, public checks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
