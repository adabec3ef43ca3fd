"""The instructor recipes of docs/assignment.md, each carried out on a temporary copy of the package.

A copy holds the package's files (no .venv, build/, .git: it rebuilds what it needs) and a link
to this checkout's virtual environment; every command runs in the copy with the copy first on
PYTHONPATH, and each copy first proves that its own modules are the ones imported. A recipe is
the recipe's list of files, edited as it says, then `make release UPDATE=1`, then real grades
through `python -m autograder grade` of the copy's solution (instructor) notebook and its blank
release. Expected points come from this checkout's suites plus what the test changed, never
from literals. Three copies, one release each:

  numbers     a test's points, a tolerance, the smoke and full epochs; then, in the same copy, the
              operational recipes: grade one part, regrade one student into the class CSV, the
              feedback levels, and the Gradescope zip's feedback level and visibility
  function    a graded function added to an existing part (with tests/corpus/alternatives.py)
  part        a new graded part
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autograder import assignment
from autograder.engine.catalog import catalog, part_points
from solutions.week7_attention.suites.tolerances import TOL, Tol
from tests.corpus.alternatives import ALTERNATIVES

pytestmark = pytest.mark.slow

ROOT = assignment.ROOT
SOLUTION = assignment.INSTRUCTOR_NOTEBOOK.relative_to(ROOT)
BLANK = assignment.STUDENT_NOTEBOOK.relative_to(ROOT)
CI_PARTS = Path("templates/student-ci/.github/scripts/parts.json")
NOT_COPIED_TOP = {".venv", "build", ".git", ".pytest_cache", "results.json", "written", "submissions"}


def not_copied(folder, names):
    """What the copy rebuilds or never needs: the environment, build/, git, caches, grading outputs at the root."""
    top = Path(folder) == ROOT
    return {n for n in names if n == "__pycache__" or (top and (n in NOT_COPIED_TOP or n.startswith("grades")))}


class Copy:
    """A temporary copy of the package that runs its own code with this checkout's interpreter."""

    def __init__(self, path):
        self.root = path
        shutil.copytree(ROOT, path, ignore=not_copied, symlinks=True)
        (path / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
        self.env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FEEDBACK", "VISIBILITY",
                                                                        assignment.WORKDIR_VARIABLE)}
        self.env["PYTHONPATH"] = str(path)
        self.python = str(path / ".venv" / "bin" / "python")
        imported = self.run(self.python, "-c", "import autograder, solutions; "
                            "print(autograder.__file__); print(solutions.__file__)").stdout.split()
        assert imported and all(Path(f).resolve().is_relative_to(path.resolve()) for f in imported), \
            f"the copy must import its own package, not {imported}"

    def run(self, *cmd, ok=True, env=None):
        if cmd[0] == "make":  # never `make install` from the copy: it would point the shared venv's
            cmd = ("make", "-o", ".venv/.installed", *cmd[1:])  # editable install at this temporary copy
        proc = subprocess.run(cmd, cwd=self.root, env=dict(self.env, **(env or {})), capture_output=True,
                              text=True, timeout=600)
        if ok:
            assert proc.returncode == 0, f"{' '.join(map(str, cmd))} exited {proc.returncode}\n" \
                                         f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        return proc

    def edit(self, relpath, old, new, count=1):
        """Replace ``old`` (found exactly ``count`` times, or a compiled regex) in one file of the copy."""
        path = self.root / relpath
        text = path.read_text()
        if isinstance(old, re.Pattern):
            text, found = old.subn(new, text)
        else:
            found = text.count(old)
            text = text.replace(old, new)
        assert found == count, f"recipe edit of {relpath}: {old!r} found {found} times, expected {count}"
        path.write_text(text)

    def append(self, relpath, text):
        path = self.root / relpath
        path.write_text(path.read_text().rstrip("\n") + "\n" + text)

    def release(self):
        """`make release UPDATE=1`, as docs/assignment.md says."""
        run = self.run("make", "release", "UPDATE=1")
        assert "Release ready." in run.stdout, run.stdout[-2000:]
        return run

    def grade(self, notebook, *options, out="results.json"):
        self.run(self.python, "-m", "autograder", "grade", str(notebook), "--out", out, *options)
        return json.loads((self.root / out).read_text())

    def ci_parts(self):
        return json.loads((self.root / CI_PARTS).read_text())["parts"]


def by_part(results):
    """{part: (score, max)} from a results.json: its tests, tagged with their part."""
    found = {}
    for test in results["tests"]:
        if test.get("visibility") == "hidden" and test.get("max_score", 0) == 0:
            continue  # the graders' written answers (0 points)
        (part,) = test["tags"]
        got, top = found.get(part, (0.0, 0.0))
        found[part] = (got + test["score"], top + test["max_score"])
    return found


def assert_full_and_blank(copy, expected, *blank_options):
    """The copy's solution scores every point of ``expected`` ({part: points}), its blank release none."""
    solution = copy.grade(SOLUTION, out="solution.json")
    assert by_part(solution) == {p: (v, v) for p, v in expected.items()}, solution["output"]
    assert solution["score"] == sum(expected.values())
    blank = copy.grade(BLANK, *blank_options, out="blank.json")
    assert by_part(blank) == {p: (0.0, v) for p, v in expected.items()}, blank["output"]
    assert blank["score"] == 0
    parts = copy.ci_parts()
    assert {p: e["points"] for p, e in parts.items()} == expected, "the student-CI parts.json did not follow"
    return solution, blank


def a_single_test(part):
    """(file, function name, points) of one hidden test of ``part`` that is not parametrized."""
    counts = {}
    for test in catalog():
        name = test.nodeid.split("::")[1].split("[")[0]
        counts[(test.nodeid.split("::")[0], name)] = counts.get((test.nodeid.split("::")[0], name), 0) + 1
    for test in catalog():
        path, name = test.nodeid.split("::")
        if test.part == part and counts[(path, name)] == 1:
            return f"solutions/week7_attention/suites/{Path(path).name}", name, test.points
    raise AssertionError(f"no single hidden test in {part}")


def wrap(function, body):
    """Notebook code that replaces ``function`` by a wrapper around the student's own version."""
    return f"\n\n_original_{function} = {function}\n\n\ndef {function}(*args, **kwargs):\n    {body}\n"


def solution_cell_append(notebook, part, code):
    nb = json.loads(notebook.read_text())
    (cell,) = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == f"{part}_solution"]
    cell["source"] = "".join(cell["source"]) + code
    return json.dumps(nb)


# ---- change points, a tolerance, the epochs; then grade one part, one student, feedback, Gradescope ----------
POINTS_PART, POINTS_DELTA = "masks", 3
TOL_NAME, TOL_FACTOR = "positions", 3


@pytest.fixture(scope="module")
def numbers(tmp_path_factory):
    copy = Copy(tmp_path_factory.mktemp("numbers") / "package")
    # Recipe "change a test's points": its @pytest.mark.points(n) in solutions/week7_attention/suites/test_<part>.py.
    path, name, old = a_single_test(POINTS_PART)
    new_points = old + POINTS_DELTA
    copy.edit(path, re.compile(rf"@pytest\.mark\.points\([\d.]+\)(\n(?:@.*\n)*def {name}\()"),
              rf"@pytest.mark.points({new_points:g})\1")
    # Recipe "change a tolerance": its entry in solutions/week7_attention/suites/tolerances.py.
    tol = Tol(TOL[TOL_NAME].atol * TOL_FACTOR, TOL[TOL_NAME].rtol)
    copy.edit("solutions/week7_attention/suites/tolerances.py", re.compile(rf'"{TOL_NAME}": Tol\([^)]*\)'),
              f'"{TOL_NAME}": Tol({tol.atol:g}, {tol.rtol:g})')
    # Recipe "change the smoke or full epochs": EPOCHS in solutions/lab/lab.py.
    lab = (copy.root / assignment.LAB_PY.relative_to(ROOT)).read_text()
    epochs = {k: int(v) for k, v in re.findall(r'"(smoke|full)": (\d+)', lab.split("EPOCHS", 1)[1][:200])}
    assert set(epochs) == {"smoke", "full"}, "EPOCHS in solutions/lab/lab.py moved"
    new_epochs = {"smoke": epochs["smoke"] + 1, "full": epochs["full"] + 5}
    for key in epochs:
        copy.edit(assignment.LAB_PY.relative_to(ROOT), f'"{key}": {epochs[key]}', f'"{key}": {new_epochs[key]}')
    release = copy.release()
    expected = dict(part_points())
    expected[POINTS_PART] += POINTS_DELTA
    # Recipe "feedback level and visibility" on the command line: the blank graded at level score.
    solution, blank = assert_full_and_blank(copy, expected, "--feedback", "score", "--visibility", "after_due_date")
    return {"copy": copy, "expected": expected, "tol": tol, "epochs": new_epochs, "release": release,
            "solution": solution, "blank": blank}


def test_changed_points_reach_the_grade_the_notebook_and_the_student_ci(numbers):
    copy, expected = numbers["copy"], numbers["expected"]
    assert f"total {sum(expected.values()):g}" in numbers["release"].stdout
    released = json.loads((copy.root / BLANK).read_text())
    graded = {c["metadata"]["nbgrader"]["grade_id"]: c["metadata"]["nbgrader"]["points"] for c in released["cells"]
              if c["metadata"].get("nbgrader", {}).get("grade") and c["cell_type"] == "code"}
    assert graded == {f"{p}_tests": v for p, v in expected.items()}


def test_changed_epochs_reach_the_notebook_and_the_grade(numbers):
    """The solution still scores full marks in training: the student's run and the reference run both changed."""
    released = "".join("".join(c["source"]) for c in json.loads((numbers["copy"].root / BLANK).read_text())["cells"])
    for key, value in numbers["epochs"].items():
        assert f'"{key}": {value}' in released
    training = by_part(numbers["solution"])["training"]
    assert training[0] == training[1] == numbers["expected"]["training"]


def test_grade_one_part_with_values_feedback_shows_the_changed_tolerance(numbers):
    """`grade --part positions --feedback values` on a notebook whose table is 1% off: only that part, and the
    failed checks name the tolerance now in the table."""
    copy = numbers["copy"]
    (copy.root / "off.ipynb").write_text(solution_cell_append(
        copy.root / SOLUTION, "positions",
        wrap("sinusoidal_positions", "return _original_sinusoidal_positions(*args, **kwargs) * 1.01")))
    results = copy.grade("off.ipynb", "--part", "positions", "--feedback", "values", out="off.json")
    scores = by_part(results)
    assert set(scores) == {"positions"} and 0 < scores["positions"][0] < scores["positions"][1], results["output"]
    failed = [t["output"] for t in results["tests"] if t["status"] == "failed"]
    assert failed and any(str(numbers["tol"]) in text for text in failed), failed
    assert not any("Likely cause" in text for text in failed)


def test_feedback_score_shows_one_line_per_part_and_visibility_applies(numbers):
    expected, results = numbers["expected"], numbers["blank"]
    tests = [t for t in results["tests"] if t["max_score"] > 0]
    assert [t["name"] for t in tests] == list(expected) and all(t["output"] == "" for t in tests)
    assert {t["visibility"] for t in tests} == {"after_due_date"} and results["visibility"] == "after_due_date"


def test_regrade_one_student_into_the_class_csv(numbers):
    """grade-all on a folder holding only the student to regrade, into the class's --out: merged, not replaced."""
    copy, expected = numbers["copy"], numbers["expected"]
    total = sum(expected.values())
    first, again = copy.root / "class", copy.root / "again"
    for folder in (first, again):
        folder.mkdir()
    shutil.copy(copy.root / SOLUTION, first / "alice.ipynb")
    shutil.copy(copy.root / BLANK, first / "bob.ipynb")
    shutil.copy(copy.root / SOLUTION, again / "bob.ipynb")  # bob resubmits
    grades = copy.root / "out" / "grades.csv"
    copy.run(copy.python, "-m", "autograder", "grade-all", "class", "--out", str(grades), "--jobs", "1")
    before = {r["student"]: r for r in csv.DictReader(grades.open())}
    assert float(before["alice"]["total"]) == total and float(before["bob"]["total"]) == 0
    run = copy.run(copy.python, "-m", "autograder", "grade-all", "again", "--out", str(grades))
    assert "grades.csv: 1 updated, 0 added, 1 kept" in run.stdout, run.stdout[-2000:]
    after = {r["student"]: r for r in csv.DictReader(grades.open())}
    assert after["alice"] == before["alice"]
    assert float(after["bob"]["total"]) == total and all(float(after["bob"][p]) == v for p, v in expected.items())
    # One part of the class goes to its own CSV: into the class's, it would drop the other parts' points.
    refused = copy.run(copy.python, "-m", "autograder", "grade-all", "again", "--out", str(grades),
                       "--part", POINTS_PART, ok=False)
    assert refused.returncode == 2 and "its own --out" in refused.stderr, refused.stderr
    assert {r["student"]: r for r in csv.DictReader(grades.open())} == after


def test_gradescope_zip_carries_feedback_level_and_visibility(numbers, tmp_path):
    copy = numbers["copy"]
    made = copy.run("make", "gradescope", "FEEDBACK=checks", "VISIBILITY=after_published")
    assert "feedback level: checks; test visibility: after_published" in made.stdout, made.stdout
    root = tmp_path / "gs"
    with zipfile.ZipFile(copy.root / "build" / "gradescope" / "autograder.zip") as archive:
        archive.extractall(root / "source")
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    (root / "run_autograder").chmod(0o755)
    (root / "submission").mkdir()
    shutil.copy(copy.root / BLANK, root / "submission" / assignment.NOTEBOOK_FILE)
    env = {"GRADESCOPE_ROOT": str(root), "GRADESCOPE_PYTHON": copy.python, "PYTHONPATH": str(root / "source")}
    copy.run("bash", str(root / "run_autograder"), env=env)
    results = json.loads((root / "results" / "results.json").read_text())
    tests = [t for t in results["tests"] if t["max_score"] > 0]
    assert by_part(results) == {p: (0.0, v) for p, v in numbers["expected"].items()}, results["output"]
    assert {t["visibility"] for t in tests} == {"after_published"}
    assert all(t["output"] == "" for t in tests)  # checks: titles and verdicts, no values


# ---- add a graded function to an existing part ---------------------------------------------------------------
NEW_FUNCTION_PART, NEW_FUNCTION, NEW_FUNCTION_POINTS = "positions", "position_ids", 2
NEW_FUNCTION_CODE = f'''

def {NEW_FUNCTION}(batch, length):
    """(batch, length) int64 tensor: every row holds the positions 0 .. length - 1."""
    ### BEGIN SOLUTION
    return torch.arange(length).repeat(batch, 1)
    ### END SOLUTION
'''
NEW_FUNCTION_TEST = f'''

from solutions.week7_attention.suites.expect import expect  # noqa: E402


@pytest.mark.points({NEW_FUNCTION_POINTS})
def test_{NEW_FUNCTION}(student):
    """{NEW_FUNCTION}(N, T) holds 0 .. T-1 in every row"""
    got = student.{NEW_FUNCTION}(3, 5)
    expect(isinstance(got, torch.Tensor) and tuple(got.shape) == (3, 5)
           and torch.equal(got, torch.arange(5).repeat(3, 1)),
           f"{NEW_FUNCTION}(3, 5) is {{got!r:.80}}, expected three rows 0 1 2 3 4")
'''
ALTERNATIVES_CHECK = f'''
import nbformat
from tests.corpus import apply_alternative
from tests.corpus.alternatives import ALTERNATIVES
nb = nbformat.read("{SOLUTION}", as_version=4)
for alternative in ALTERNATIVES:
    if "{NEW_FUNCTION_PART}" in alternative.cells:
        try:
            apply_alternative(nb, alternative)
            print(alternative.name, "ok")
        except AssertionError as err:
            print(alternative.name, "error:", err)
'''


def add_to_parts(copy, part, name):
    """The assignment's facts file (Assignment.facts): ``name`` added to the end of PARTS[part]."""
    copy.edit(assignment.FACTS, re.compile(rf'(\n    "{part}": \((?:[^()]|\n)*?),?\),'),
              lambda m: f'{m.group(1)}, "{name}",),')


@pytest.fixture(scope="module")
def new_function(tmp_path_factory):
    copy = Copy(tmp_path_factory.mktemp("function") / "package")
    part = NEW_FUNCTION_PART
    module = f"solutions/reference/{part}.py"
    assert (copy.root / module).exists(), f"{part}'s reference module moved"
    copy.append(module, NEW_FUNCTION_CODE)
    copy.edit("solutions/reference/__init__.py", re.compile(rf"(\nfrom \.{part} import )"), rf"\1{NEW_FUNCTION}, ")
    copy.edit(assignment.NOTEBOOK_SOURCE.relative_to(ROOT),
              re.compile(rf"(```python solution {part}\n(?:.*\n)*?)```"), rf"\1\n{{{{ {NEW_FUNCTION} }}}}\n```")
    copy.append(f"solutions/week7_attention/suites/test_{part}.py", NEW_FUNCTION_TEST)
    # Forgetting the assignment's facts file: the release stops and says which file to fix.
    forgot = copy.run("make", "release", "UPDATE=1", ok=False)
    add_to_parts(copy, part, NEW_FUNCTION)
    copy.release()
    alternatives_before = copy.run(copy.python, "-c", ALTERNATIVES_CHECK).stdout
    expected = dict(part_points())
    expected[part] += NEW_FUNCTION_POINTS
    solution, blank = assert_full_and_blank(copy, expected)
    return {"copy": copy, "forgot": forgot, "alternatives_before": alternatives_before, "expected": expected,
            "solution": solution}


def test_new_function_is_graded_and_stubbed(new_function):
    copy = new_function["copy"]
    assert any(t["name"].startswith(f"{NEW_FUNCTION}(N, T)") and t["score"] == NEW_FUNCTION_POINTS
               for t in new_function["solution"]["tests"])
    released = "".join("".join(c["source"]) for c in json.loads((copy.root / BLANK).read_text())["cells"])
    assert f"def {NEW_FUNCTION}(batch, length):" in released and "torch.arange(length).repeat" not in released
    assert copy.ci_parts()[NEW_FUNCTION_PART]["functions"][-1] == NEW_FUNCTION


def test_new_function_without_its_parts_entry_blocks_the_release(new_function):
    forgot = new_function["forgot"]
    assert forgot.returncode != 0 and "RELEASE BLOCKED" in forgot.stderr, forgot.stderr[-2000:]
    assert f"{assignment.FACTS} PARTS['{NEW_FUNCTION_PART}']" in forgot.stderr
    assert NEW_FUNCTION in forgot.stderr


def test_new_function_needs_the_alternatives_and_says_so(new_function):
    """tests/corpus/alternatives.py: each alternative replacing the part's cell must define the new function too."""
    copy, before = new_function["copy"], new_function["alternatives_before"]
    lines = before.splitlines()
    assert lines and all(f"drops {NEW_FUNCTION} from {NEW_FUNCTION_PART}" in line for line in lines), before
    text = (copy.root / "tests/corpus/alternatives.py").read_text()
    for source in {a.cells[NEW_FUNCTION_PART] for a in ALTERNATIVES if NEW_FUNCTION_PART in a.cells}:
        assert text.count(source) == 1
        own = (f"\n\n\ndef {NEW_FUNCTION}(batch, length):\n"
               "    return torch.arange(length).expand(batch, length).clone()\n")
        text = text.replace(source, source.rstrip("\n") + own)
    (copy.root / "tests/corpus/alternatives.py").write_text(text)
    after = copy.run(copy.python, "-c", ALTERNATIVES_CHECK).stdout.splitlines()
    assert len(after) == len(lines) and all(line.endswith(" ok") for line in after), after


# ---- add a new part ------------------------------------------------------------------------------------------
NEW_PART, NEW_PART_FUNCTION = "sampling", "greedy_next_token"
NEW_PART_POINTS = (2, 3)
NEW_PART_REFERENCE = f'''"""{NEW_PART}: the token a greedy decoder picks next."""
import torch


def {NEW_PART_FUNCTION}(logits):
    """(N,) int64: the most likely next token after each sequence, from (N, T, V) logits."""
    ### BEGIN SOLUTION
    return logits[:, -1, :].argmax(dim=-1)
    ### END SOLUTION
'''
NEW_PART_SUITE = f'''"""{NEW_PART}: greedy decoding picks the most likely token after the last position."""
import pytest
import torch

from solutions.week7_attention.suites.expect import expect

pytestmark = pytest.mark.part("{NEW_PART}")


@pytest.mark.points({NEW_PART_POINTS[0]})
def test_shape(student):
    """Returns one token id per sequence"""
    got = student.{NEW_PART_FUNCTION}(torch.randn(4, 3, 8))
    expect(isinstance(got, torch.Tensor) and tuple(got.shape) == (4,), f"got {{got!r:.80}}, expected shape (4,)")


@pytest.mark.points({NEW_PART_POINTS[1]})
def test_picks_the_last_position_s_argmax(student):
    """Picks the argmax of the last position's logits"""
    logits = torch.randn(5, 4, 8)
    got = student.{NEW_PART_FUNCTION}(logits)
    expect(isinstance(got, torch.Tensor) and torch.equal(got, logits[:, -1].argmax(-1)),
           f"got {{got!r:.80}}, expected the argmax over the vocabulary at the last position")
'''
NEW_PART_SECTION = f'''## Extra part — Greedy decoding (`{NEW_PART}`)

The next token, greedily: the vocabulary entry with the largest logit at the last position.

```python solution {NEW_PART}
{{{{ {NEW_PART_FUNCTION} }}}}
```

```python check {NEW_PART}
assert {NEW_PART_FUNCTION}(torch.tensor([[[0.0, 2.0, 1.0]]])).tolist() == [1]
print("{NEW_PART}: public checks passed")
```

```python graded {NEW_PART}
```

'''


@pytest.fixture(scope="module")
def new_part(tmp_path_factory):
    copy = Copy(tmp_path_factory.mktemp("part") / "package")
    before = list(assignment.PARTS)[-1]  # the new part goes before the last one, in notebook order
    (copy.root / f"solutions/reference/{NEW_PART}.py").write_text(NEW_PART_REFERENCE)
    copy.append("solutions/reference/__init__.py", f"from .{NEW_PART} import {NEW_PART_FUNCTION}  # noqa: E402\n")
    copy.edit(assignment.FACTS, f'\n    "{before}": (',
              f'\n    "{NEW_PART}": ("{NEW_PART_FUNCTION}",),\n    "{before}": (')
    (copy.root / f"solutions/week7_attention/suites/test_{NEW_PART}.py").write_text(NEW_PART_SUITE)
    source = assignment.NOTEBOOK_SOURCE.relative_to(ROOT)
    text = (copy.root / source).read_text()
    graded_last = text.index(f"```python graded {before}\n")
    heading = text.rindex("\n## ", 0, graded_last) + 1
    (copy.root / source).write_text(text[:heading] + NEW_PART_SECTION + text[heading:])
    release = copy.release()
    expected = {p: v for p, v in part_points().items() if p != before}
    expected[NEW_PART] = float(sum(NEW_PART_POINTS))
    expected[before] = part_points()[before]
    solution, blank = assert_full_and_blank(copy, expected)
    return {"copy": copy, "release": release, "expected": expected, "solution": solution, "blank": blank}


def test_new_part_is_graded_in_notebook_order(new_part):
    copy, expected = new_part["copy"], new_part["expected"]
    assert list(by_part(new_part["solution"])) == list(expected)
    assert f"{NEW_PART} {sum(NEW_PART_POINTS):g}" in new_part["release"].stdout
    parts = copy.ci_parts()
    assert list(parts) == list(expected)
    assert parts[NEW_PART]["functions"] == [NEW_PART_FUNCTION] and NEW_PART_FUNCTION in parts[NEW_PART]["check"]
    assert "print(\"sampling: public checks passed\")" in parts[NEW_PART]["check"]

