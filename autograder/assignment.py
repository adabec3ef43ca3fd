"""The current assignment, as the engine sees it: its facts and the places of its content.

The engine knows no assignment. This module finds the one to grade by the discovery rule of
``autograder/plugin_api.py`` (``$AUTOGRADER_ASSIGNMENT`` names its package; default week 7's,
``solutions.week7_attention``), once per process, and gives the rest of the engine its facts
under the names they always had:

    ASSIGNMENT      the plug-in (plugin_api.Assignment), as its package defines it
    NAME            the assignment's name: nbgrader folder, notebook file stem, LMS column
    PARTS           {part: graded function names}, parts and functions in notebook order
    USES            {graded function: the graded functions it calls}, as the notebook asks
    ROOT ... paths  where the package's own files are, and where the instructor's working data
                    goes (computed here only; see "paths" below)
    code sets       which folders make up the hidden code, the engine, the lab, and what a
                    grade depends on (the batch resume key, the Gradescope zip, the template's
                    hidden-code guard and the reference cache key read them)
    served(), misconceptions(), build_course()   the assignment's modules, imported when asked

The facts themselves are written once, in the assignment package (week 7's:
``solutions/week7_attention/assignment.py``); the points beside each hidden test (ask
``autograder.engine.catalog.part_points()``). ``templates/student-ci/.github/scripts/public_checks.py``
runs in student repositories without this package: it reads ``parts.json`` beside it, which
``make release UPDATE=1`` generates from these facts (solutions/release/student_ci.py).

This module imports nothing but the standard library (and the assignment's facts, standard
library only too): the sandbox, the release tooling and the tests import it before (or without)
PyTorch. tests/test_single_source.py fails when a second definition of any fact appears elsewhere.
"""
import os
from pathlib import Path

from .plugin_api import Assignment, Served, load

ASSIGNMENT: Assignment = load()
NAME = ASSIGNMENT.name
PARTS = dict(ASSIGNMENT.parts)
PART_IDS = ASSIGNMENT.part_ids
USES = dict(ASSIGNMENT.uses)
depends_on = ASSIGNMENT.depends_on
# Where the parts are written (release messages, the authoring recipes): the package's own file, if it says none.
FACTS = ASSIGNMENT.facts or f"{ASSIGNMENT.package.replace('.', '/')}/__init__.py"


def served() -> Served:
    """What the assignment hands to student functions (plugin_api.Served; imports PyTorch)."""
    return ASSIGNMENT.served_module()


def misconceptions():
    """The assignment's misconception library (a module), or None."""
    return ASSIGNMENT.diagnosis_module()


def build_course(*args, **kwargs):
    """Build the assignment's nbgrader course (its release module's build_course)."""
    import importlib
    return importlib.import_module(ASSIGNMENT.release).build_course(*args, **kwargs)

# ---- paths ------------------------------------------------------------------------------------
# Two places. The package's own files (the engine, the hidden suites, the reference, the templates) are
# beside this module: in a checkout, in an unzipped copy such as Gradescope's /autograder/source, or in
# site-packages once the wheel is installed. The instructor's working data (build/: the nbgrader course,
# the secret key, the caches, the Gradescope zip) goes to a working directory (workdir()): in a checkout,
# the checkout itself, as always; for an installed package, $AUTOGRADER_WORKDIR (`autograder --workdir`)
# or else the current directory.
ROOT = Path(__file__).resolve().parents[1]  # the folder that holds the packages autograder/ and solutions/
# A wheel also carries copies of the few checkout files outside the two packages that the grader reads
# (SHIPPED), under autograder/_shipped/ at their checkout paths (setup.py writes them into the wheel).
# That folder exists only in an installed package: it is what tells one from a checkout.
SHIPPED_COPIES = ROOT / "autograder" / "_shipped"
INSTALLED = SHIPPED_COPIES.is_dir()
CHECKOUT_FILES = SHIPPED_COPIES if INSTALLED else ROOT
SHIPPED = (ASSIGNMENT.student_notebook, "requirements-grader.txt")  # relative to the checkout
WORKDIR_VARIABLE = "AUTOGRADER_WORKDIR"
# What the variable was called while the engine served week 7 alone: still read (after the new name), so
# that a course set up then keeps its build/ and its secret key.
OLD_WORKDIR_VARIABLES = ("WEEK7_WORKDIR",)

SUITES = ROOT / ASSIGNMENT.suites
REFERENCE = ROOT / ASSIGNMENT.reference
LAB_PY = ROOT / ASSIGNMENT.lab
NOTEBOOK_SOURCE = ROOT / ASSIGNMENT.notebook_source  # what instructors edit
NOTEBOOK_FILE = f"{NAME}.ipynb"  # what students upload
STUDENT_NOTEBOOK = CHECKOUT_FILES / SHIPPED[0]  # committed, generated
GRADER_LOCK = CHECKOUT_FILES / SHIPPED[1]  # the pinned packages the grader alone needs (the Gradescope image)


def workdir() -> Path:
    """Where the instructor's working data goes: $AUTOGRADER_WORKDIR, else the checkout, else (installed) the cwd."""
    chosen = next((os.environ[v] for v in (WORKDIR_VARIABLE, *OLD_WORKDIR_VARIABLES) if os.environ.get(v)), None)
    if chosen:
        return Path(chosen).resolve()
    return Path.cwd().resolve() if INSTALLED else ROOT


def course_notebook(course, stage="source", student=None):
    """COURSE/<stage>[/<student>]/NAME/NAME.ipynb (stage: source, release, submitted, autograded, ...)."""
    folder = Path(course) / stage
    return (folder / student if student else folder) / NAME / NOTEBOOK_FILE


# The working data's paths, read when asked for (PEP 562), so that `--workdir` set by the CLI before it
# imports the flows reaches every module that names them.
_WORKING = {
    "BUILD": lambda: workdir() / "build",
    "COURSE": lambda: workdir() / "build" / "course",  # the nbgrader course: submissions, gradebook.db, feedback
    "CACHE": lambda: workdir() / "build" / "cache",
    "SECRET_KEY": lambda: workdir() / "build" / "secret.key",
    "INSTRUCTOR_NOTEBOOK": lambda: course_notebook(workdir() / "build" / "course"),  # every solution, nbgrader markup
    "RELEASE_NOTEBOOK": lambda: course_notebook(workdir() / "build" / "course", "release"),
}


def __getattr__(name: str) -> Path:
    if name in _WORKING:
        return _WORKING[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def private() -> list[Path]:
    """What a sandboxed worker must never see of ours: the packages (hidden suites, reference) and the
    working data (secret key, course, caches). In a checkout that is the checkout itself; an installed
    package's folder is site-packages, which the worker needs (PyTorch), so only our two packages there."""
    ours = [ROOT / "autograder", ROOT / "solutions"] if INSTALLED else [ROOT]
    return list(dict.fromkeys([*ours, workdir()]))


# ---- code sets: folders or files at their checkout paths, posix -----------------------------------
HIDDEN = ASSIGNMENT.hidden  # never in a worker's memory or view
ENGINE = ("autograder/engine", "autograder/sandbox", "autograder/flows")  # trusted machinery
LAB = ASSIGNMENT.lab_code  # the given lab code (the student notebook holds a copy)
# What the grader reads at grading time (the Gradescope zip): the whole package, the hidden
# code, the lab, the solutions package's own small modules, and the released student notebook
# (the written questions' text, to find and label the answers).
GRADER = ("autograder", *ASSIGNMENT.grader_code, SHIPPED[0])
# What a grade depends on (grade-all's resume key): all the grader's code, flows included (they write
# the feedback), so that a changed grader never reuses a result it might not give again.
GRADE_INPUTS = GRADER
# What the reference smoke run's numbers depend on (besides torch and the CPU): the reference, the
# lab and the optimizer the grader trains it with.
REFERENCE_RUN = ASSIGNMENT.reference_run


def module_prefixes(entries):
    """Dotted module prefixes of folder entries: ("solutions/week7_attention/suites",) -> ("solutions.week7_attention.suites",)."""
    return tuple(entry.replace("/", ".") for entry in entries if not entry.endswith(".py"))


def located(entry: str) -> Path:
    """The file or folder of a code-set entry: inside the packages, or one of the checkout's SHIPPED files."""
    return (CHECKOUT_FILES if entry in SHIPPED else ROOT) / entry


def named_files(entries: tuple[str, ...], suffix: str = ".py") -> list[tuple[str, Path]]:
    """[(checkout path, file)] of every file under ``entries`` ending in ``suffix``, sorted by name,
    without caches or the shipped copies (each is named by its own entry); ``suffix=""`` for every file.
    The name is the same in a checkout and in an installed package (the Gradescope zip's member names)."""
    found = {}
    for entry in entries:
        path = located(entry)
        candidates = [path] if path.is_file() else path.rglob("*")
        for p in candidates:
            if p.is_file() and p.name.endswith(suffix) and "__pycache__" not in p.parts and not p.name.endswith(".pyc"):
                name = entry if p == path else f"{entry}/{p.relative_to(path).as_posix()}"
                if not p.is_relative_to(SHIPPED_COPIES) or entry in SHIPPED:
                    found[name] = p
    return sorted(found.items())


def files(entries, suffix=".py"):
    """Every file under ``entries`` (folders or files relative to ROOT) ending in ``suffix``, sorted,
    without caches; ``suffix=""`` for every file."""
    return [path for _, path in named_files(entries, suffix)]
