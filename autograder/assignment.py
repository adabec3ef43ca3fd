"""The facts of this assignment, each written once. Everything else reads them from here.

    NAME            the assignment's name: nbgrader folder, notebook file stem, LMS column
    PARTS           {part: graded function names}, parts and functions in notebook order
    USES            {graded function: the graded functions it calls}, as the notebook asks
    ROOT ... paths  where the checkout's pieces are (computed here only)
    code sets       which folders make up the hidden code, the engine, the lab, and what a
                    grade depends on (the batch resume key, the Gradescope zip, the template's
                    hidden-code guard and the reference cache key read them)

Not here, because they already have one home each: the points (``@pytest.mark.points``
beside each hidden test; ask ``autograder.engine.catalog.part_points()``), the smoke and
full epochs (``solutions/lab/lab.py`` ``EPOCHS``), the tolerances
(``autograder/suites/tolerances.py``). ``templates/student-ci/.github/scripts/public_checks.py``
runs in student repositories without this package: it reads ``parts.json`` beside it, which
``make release UPDATE=1`` generates from these facts (solutions/release/student_ci.py).

This module imports nothing but the standard library: the sandbox, the release tooling and
the tests import it before (or without) PyTorch. tests/test_single_source.py fails when a
second definition of any of these facts appears elsewhere.
"""
from pathlib import Path

NAME = "week7_attention"

# Graded function names per part, parts in notebook order. The part ids are the ones used by
# pytest markers, results.json tags, grades.csv columns and `make test-part PART=...`.
PARTS = {
    "softmax_read": ("stable_softmax", "attention_read"),
    "masks": ("causal_mask_blocked", "causal_mask_allowed", "causal_mask_additive",
              "padding_mask_blocked", "sdpa_mask"),
    "multihead": ("split_heads", "merge_heads", "multi_head_self_attention"),
    "positions": ("sinusoidal_positions",),
    "targets": ("shift_for_next_token", "next_token_loss"),
    "leakage": ("prefix_change", "assert_no_future_leakage"),
    "training": (),  # nothing new: the lab's smoke run with the student's mask, shift and loss
}
PART_IDS = tuple(PARTS)

# Which graded functions call which (directly), as the notebook's stubs ask and the reference does.
# The student's inner calls happen in the sandboxed worker, out of the grader's sight: this map is
# how a failure is traced back to a function that fails its own checks (autograder.diagnosis.hints)
# and how a diagnosed cause is looked for upstream (autograder.diagnosis.core).
USES = {
    "attention_read": ("stable_softmax",),
    "causal_mask_additive": ("causal_mask_blocked",),
    "sdpa_mask": ("causal_mask_allowed", "padding_mask_blocked"),
    "multi_head_self_attention": ("split_heads", "merge_heads", "attention_read"),
    "assert_no_future_leakage": ("prefix_change",),
}


def depends_on(function):
    """Every graded function ``function`` calls, directly or through another (USES, transitively)."""
    found, todo = [], list(USES.get(function, ()))
    while todo:
        used = todo.pop(0)
        if used not in found:
            found.append(used)
            todo += USES.get(used, ())
    return tuple(found)

# ---- paths ------------------------------------------------------------------------------------
ROOT = Path(__file__).resolve().parents[1]  # the checkout (or /autograder/source on Gradescope)
SUITES = ROOT / "autograder" / "suites"
REFERENCE = ROOT / "solutions" / "reference"
LAB_PY = ROOT / "solutions" / "lab" / "lab.py"
NOTEBOOK_SOURCE = ROOT / "solutions" / "notebook" / f"{NAME}.md"  # what instructors edit
NOTEBOOK_FILE = f"{NAME}.ipynb"  # what students upload
STUDENT_NOTEBOOK = ROOT / "assignments" / NAME / NOTEBOOK_FILE  # committed, generated
BUILD = ROOT / "build"
COURSE = BUILD / "course"  # the nbgrader course: submissions, gradebook.db, feedback
CACHE = BUILD / "cache"
SECRET_KEY = BUILD / "secret.key"


def course_notebook(course, stage="source", student=None):
    """COURSE/<stage>[/<student>]/NAME/NAME.ipynb (stage: source, release, submitted, autograded, ...)."""
    folder = Path(course) / stage
    return (folder / student if student else folder) / NAME / NOTEBOOK_FILE


INSTRUCTOR_NOTEBOOK = course_notebook(COURSE)  # with every solution, nbgrader markup
RELEASE_NOTEBOOK = course_notebook(COURSE, "release")

# ---- code sets: folders or files relative to ROOT, posix ---------------------------------------
HIDDEN = ("autograder/suites", "solutions/reference")  # never in a worker's memory or view
ENGINE = ("autograder/engine", "autograder/sandbox", "autograder/flows")  # trusted machinery
LAB = ("solutions/lab",)  # the given lab code (the student notebook holds a copy)
# What the grader reads at grading time (the Gradescope zip): the whole package, the hidden
# code, the lab, the solutions package's own small modules, and the released student notebook
# (the written questions' text, to find and label the answers).
GRADER = ("autograder", "solutions/__init__.py", "solutions/_shapes.py", *HIDDEN[1:], *LAB,
          STUDENT_NOTEBOOK.relative_to(ROOT).as_posix())
# What a grade depends on (grade-all's resume key): all the grader's code, flows included (they write
# the feedback), so that a changed grader never reuses a result it might not give again.
GRADE_INPUTS = GRADER
# What the reference smoke run's numbers depend on (besides torch and the CPU): the reference, the
# lab and the optimizer the grader trains it with.
REFERENCE_RUN = ("solutions/_shapes.py", "solutions/reference", *LAB, "autograder/engine/eager_adamw.py")


def module_prefixes(entries):
    """Dotted module prefixes of folder entries: ("autograder/suites",) -> ("autograder.suites",)."""
    return tuple(entry.replace("/", ".") for entry in entries if not entry.endswith(".py"))


def files(entries, suffix=".py"):
    """Every file under ``entries`` (folders or files relative to ROOT) ending in ``suffix``, sorted,
    without caches; ``suffix=""`` for every file."""
    found = set()
    for entry in entries:
        path = ROOT / entry
        candidates = [path] if path.is_file() else path.rglob("*")
        for p in candidates:
            if p.is_file() and p.name.endswith(suffix) and "__pycache__" not in p.parts and not p.name.endswith(".pyc"):
                found.add(p)
    return sorted(found)
