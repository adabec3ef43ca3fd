"""python -m autograder install-nbgrader COURSE_DIR: put this assignment into an nbgrader course, once.

After it, the ordinary nbgrader commands grade the assignment in the sandbox, with nothing
run before them: `nbgrader autograde week7_attention` (`--student`, `--force`), the
formgrader's Autograde button, `generate_feedback`, `export`, manual grading in the
formgrader. Every other assignment of the course stays nbgrader's own. It

1. adds two lines at the end of COURSE/nbgrader_config.py (created if missing; nothing
   else of the course's configuration changes): they load config.py, whose preprocessors
   act on this assignment's notebooks only;
2. installs the assignment's isolated Jupyter kernel (week 7's: `week7-isolated`) into this venv (kernelspec.py);
3. writes the instructor notebook to COURSE/source/week7_attention/ and runs the real
   `nbgrader generate_assignment week7_attention` (the gradebook learns the assignment; its
   release/ copy is what students get), then checks that the gradebook runs this notebook
   in the isolated kernel.

Run nbgrader from this venv afterwards (`source .venv/bin/activate`): the course's config
imports this package. Running it again updates the assignment and leaves the lines as they are.

Another assignment into the same course: the same command with $AUTOGRADER_ASSIGNMENT naming its package
(`AUTOGRADER_ASSIGNMENT=solutions.week6_bigram python -m autograder install-nbgrader COURSE`) adds two lines
naming that package (`grade_in_sandbox(c, "solutions.week6_bigram")`), installs its own kernel spec
(`week6-bigram-isolated`) and generates it; the lines already there stay.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...engine.output_file import write_atomic
from . import CURRENT, Graded, default_name
from .course import loads_our_config


def config_lines(assignment: Graded = CURRENT) -> str:
    """The lines for ``assignment``: for the default one the bare line (the same text as ever), else a line naming
    its package."""
    if assignment.name == default_name():
        return (f"\n# {assignment.name} is graded in the sandbox by the plain nbgrader commands; every other "
                "assignment of this\n# course is graded as nbgrader alone would (python -m autograder "
                "install-nbgrader; keep these lines last).\n"
                "from autograder.flows.nbgrader.config import grade_in_sandbox  # noqa: E402\n"
                "grade_in_sandbox(c)\n")
    return (f"\n# {assignment.name} is graded in the sandbox by the plain nbgrader commands, by the assignment "
            f"package\n# {assignment.package} (AUTOGRADER_ASSIGNMENT={assignment.package} python -m autograder "
            "install-nbgrader; keep these lines last).\n"
            "from autograder.flows.nbgrader.config import grade_in_sandbox  # noqa: E402\n"
            f"grade_in_sandbox(c, {assignment.package!r})\n")


def add_config(course: Path, assignment: Graded = CURRENT) -> str:
    """COURSE/nbgrader_config.py loads the assignment's grading; returns what was done."""
    path, name = course / "nbgrader_config.py", assignment.name
    default = assignment.name == default_name()
    if loads_our_config(course, None if default else assignment.package):
        return f"{path} already grades {name} in the sandbox"
    text = path.read_text() if path.exists() else "c = get_config()  # noqa: F821 - provided by nbgrader\n"
    write_atomic(path, text + ("" if text.endswith("\n") else "\n") + config_lines(assignment))
    return f"{path}: added the two lines that grade {name} in the sandbox"


def gradebook_kernel(course: Path, name: str = CURRENT.name) -> str | None:
    """The kernel the gradebook runs the assignment's notebook in (what OverwriteKernelspec gives submissions)."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        try:
            spec = gradebook.find_notebook(name, name).kernelspec
        except MissingEntry:
            return None
    return (json.loads(spec) or {}).get("name") if spec else None


def install(course: str | Path, log: Callable[[str], object] = print) -> int:
    from ...assignment import build_course

    from .kernelspec import check_kernel, install_kernel

    course = Path(course).expanduser().resolve()
    course.mkdir(parents=True, exist_ok=True)
    ASSIGNMENT, KERNEL_NAME = CURRENT.name, CURRENT.kernel  # the current assignment's
    log(add_config(course))
    install_kernel(kernel=KERNEL_NAME)
    check_kernel(kernel=KERNEL_NAME)
    log(f"Jupyter kernel {KERNEL_NAME!r} installed in {sys.prefix}")
    build_course(course, own_config=False, step=lambda name: log(f"{name} ..."))  # type: ignore[no-untyped-call]  # not annotated
    kernel = gradebook_kernel(course)
    if kernel != KERNEL_NAME:
        log(f"ERROR: the gradebook runs {ASSIGNMENT} in kernel {kernel!r}, not {KERNEL_NAME!r}: something in "
            f"{course / 'nbgrader_config.py'} after our lines replaces GenerateAssignment.preprocessors")
        return 1
    log(f"{ASSIGNMENT} is in {course}: source/, release/ (for students), gradebook.db.\n"
        f"From {course}, with this venv's nbgrader (source {Path(sys.prefix) / 'bin' / 'activate'}):\n"
        f"  nbgrader autograde {ASSIGNMENT}                 # every submission, graded in the sandbox\n"
        f"  nbgrader generate_feedback {ASSIGNMENT}\n"
        f"  nbgrader export\n"
        f"or the formgrader (jupyter lab, Nbgrader > Formgrader): Autograde, Manual Grading, Generate Feedback.")
    return 0


@dataclass(frozen=True)
class InstallOptions:
    course: str


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("install-nbgrader", help="put this assignment into an nbgrader course (once)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("course", help="the nbgrader course folder (created if missing)")
    p.set_defaults(handler=run, options=InstallOptions)


def run(options: InstallOptions) -> int:
    return install(options.course)
