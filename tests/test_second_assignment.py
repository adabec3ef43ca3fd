"""A second assignment through the plug-in interface alone (issue 29): week 6's bigram package, graded for real.

Every grade here is the real command in a fresh process, `python -m autograder grade NOTEBOOK --out r.json`
(sandboxed worker, hidden suites), with ``AUTOGRADER_ASSIGNMENT=solutions.week6_bigram``: the engine learns
everything about week 6 from solutions/week6_bigram (plugin_api.Assignment), none of it from week 7.
The notebooks are the committed student notebook (blank) and copies of it whose stubs are filled in with
the reference answers (honest) or with one mistake each.
"""
import inspect
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest

from autograder.assignment import ROOT
from autograder.plugin_api import ASSIGNMENT_VARIABLE, load

WEEK6 = load("solutions.week6_bigram")
STUDENT_NB = ROOT / WEEK6.student_notebook
TOTAL = 100.0
# Every test grades or releases for real, in fresh processes (30-60 s in all): make test runs them, make test-fast not.
pytestmark = pytest.mark.slow


def _env():
    return dict(os.environ, **{ASSIGNMENT_VARIABLE: WEEK6.package})


def _reference_source(names):
    import solutions.week6_bigram.reference as reference
    return "\n\n\n".join(inspect.getsource(getattr(reference, name)).rstrip() for name in names)


def _filled(replace=None):
    """The student notebook with every stub filled in by the reference; ``replace``: {part: its cell's code}."""
    nb = nbformat.read(STUDENT_NB, as_version=4)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and cell.cell_type == "code":
            part = meta["grade_id"].rsplit("_", 1)[0]
            cell.source = (replace or {}).get(part) or _reference_source(WEEK6.parts[part])
    return nb


# One mistake each, written as a student would (each replaces one part's solution cell).
TRANSPOSED_COUNTS = _reference_source(("bigram_log_probs", "bigram_nll")) + '''


def bigram_counts(ids, V):
    counts = torch.zeros(V, V, dtype=torch.long)
    for a, b in zip(ids[:-1].tolist(), ids[1:].tolist()):
        counts[b, a] += 1  # rows and columns swapped
    return counts
'''
LEFT_IN_EVAL_MODE = '''
def evaluate_nll(model, ids):
    model.eval()  # never switched back: a model handed over in train mode comes back in eval mode
    with torch.no_grad():
        logits = model(ids[:-1])
    return F.cross_entropy(logits, ids[1:]).item()
'''
LEFT_IN_TRAIN_MODE = '''
def evaluate_nll(model, ids):
    model.eval()
    with torch.no_grad():
        loss = F.cross_entropy(model(ids[:-1]), ids[1:]).item()
    model.train()  # always back to train: a model handed over in eval mode comes back in train mode
    return loss
'''
TRAINS_THE_MODEL = '''
def evaluate_nll(model, ids):
    was = model.training
    model.eval()
    loss = F.cross_entropy(model(ids[:-1]), ids[1:])
    value = loss.item()
    loss.backward()  # and a gradient step on the caller's model: weights changed, gradients enabled
    with torch.no_grad():
        for p in model.parameters():
            p -= 0.1 * p.grad
            p.grad = None
    model.train(was)
    return value
'''
NOTEBOOKS = {
    "honest": lambda: _filled(),
    "blank": lambda: nbformat.read(STUDENT_NB, as_version=4),
    "transposed": lambda: _filled({"bigram": TRANSPOSED_COUNTS}),
    "eval_mode": lambda: _filled({"model": LEFT_IN_EVAL_MODE}),
    "train_mode": lambda: _filled({"model": LEFT_IN_TRAIN_MODE}),
    "trains": lambda: _filled({"model": TRAINS_THE_MODEL}),
}

# Honest solutions written by someone who saw only the student notebook (three styles: loops and plain Python;
# vectorised torch with bincount and searchsorted; one_hot @ one_hot and a hand-made log_softmax), each checked
# against PyTorch first (F.cross_entropy, torch.bincount). Their solution cells are put into today's student
# notebook, so a re-release does not leave them behind.
HONEST_STYLES = sorted((ROOT / "tests" / "corpus" / "week6_honest").glob("style_*.ipynb"))


def _style(path):
    cells = nbformat.read(path, as_version=4).cells
    theirs = {c.metadata["nbgrader"]["grade_id"].rsplit("_", 1)[0]: c.source for c in cells
              if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")}
    assert set(theirs) == set(WEEK6.parts), f"{path.name} must answer every part (no reference fills in)"
    return _filled(theirs)


NOTEBOOKS.update({path.stem: (lambda path=path: _style(path)) for path in HONEST_STYLES})


def _grade(notebook, out):
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(notebook), "--out", str(out)],
                         cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"grade of {notebook.name} failed (exit {run.returncode}):\n{run.stderr[-3000:]}"
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """{kind: results.json} of each notebook of NOTEBOOKS, graded by the real command, two at a time."""
    base = tmp_path_factory.mktemp("week6")
    paths = {}
    for kind, make in NOTEBOOKS.items():
        paths[kind] = base / f"{kind}.ipynb"
        nbformat.write(make(), paths[kind])
    with ThreadPoolExecutor(2) as pool:
        results = pool.map(lambda kind: (kind, _grade(paths[kind], base / f"{kind}.json")), NOTEBOOKS)
        return dict(results)


def _by_part(result):
    parts = {part: 0.0 for part in WEEK6.parts}
    for test in result["tests"]:
        parts[test["tags"][0]] += test["score"]
    return parts


def _failed(result):
    return {test["name"] for test in result["tests"] if test["score"] < test["max_score"]}


def test_week6_is_its_own_assignment():
    assert WEEK6.name != load().name and set(WEEK6.parts) == {"tokens", "bigram", "model"}
    assert STUDENT_NB.is_file(), "release week 6 first: python -m solutions.week6_bigram.release --update"


def test_honest_notebook_scores_full_marks(graded):
    result = graded["honest"]
    assert result["score"] == TOTAL, (_failed(result), result["output"])
    assert sum(test["max_score"] for test in result["tests"]) == TOTAL
    assert {test["tags"][0] for test in result["tests"]} == set(WEEK6.parts)


@pytest.mark.parametrize("style", [path.stem for path in HONEST_STYLES])
def test_an_independent_students_solution_scores_full_marks(graded, style):
    result = graded[style]
    assert result["score"] == TOTAL, (_failed(result), result["output"])


def test_blank_notebook_scores_zero(graded):
    assert graded["blank"]["score"] == 0.0, _failed(graded["blank"]) ^ {t["name"] for t in graded["blank"]["tests"]}


def test_a_transposed_count_loses_points_in_its_own_part_only(graded):
    honest, parts = _by_part(graded["honest"]), _by_part(graded["transposed"])
    assert 0 < parts["bigram"] < honest["bigram"], parts
    assert {part: parts[part] for part in parts if part != "bigram"} == \
        {part: honest[part] for part in honest if part != "bigram"}, parts
    assert "bigram_counts counts every (current, next) pair" in _failed(graded["transposed"])


def test_a_model_left_in_eval_mode_fails_the_left_as_found_check(graded):
    honest, parts = _by_part(graded["honest"]), _by_part(graded["eval_mode"])
    assert 0 < parts["model"] < honest["model"], parts
    assert {part: parts[part] for part in parts if part != "model"} == \
        {part: honest[part] for part in honest if part != "model"}, parts
    failed = _failed(graded["eval_mode"])
    assert "A model handed over in train mode is handed back in train mode" in failed, failed
    assert "evaluate_nll of a model in train mode is computed with dropout off (eval mode)" not in failed, failed


def test_a_model_left_in_train_mode_fails_the_left_as_found_check(graded):
    honest, parts = _by_part(graded["honest"]), _by_part(graded["train_mode"])
    assert 0 < parts["model"] < honest["model"], parts
    assert {part: parts[part] for part in parts if part != "model"} == \
        {part: honest[part] for part in honest if part != "model"}, parts
    failed = _failed(graded["train_mode"])
    assert failed == {"A model handed over in eval mode stays in eval mode"}, failed


def test_a_model_changed_by_the_call_fails_the_weights_and_no_grad_checks(graded):
    """The replica's changed weights and its passes with gradients enabled reach the grader's model (served/)."""
    parts = _by_part(graded["trains"])
    assert 0 < parts["model"] < _by_part(graded["honest"])["model"], parts
    assert _failed(graded["trains"]) == {"evaluate_nll changes no weight and leaves no gradient",
                                         "evaluate_nll runs the model under torch.no_grad() and without dropout "
                                         "(each forward pass it ran)"}, _failed(graded["trains"])


def test_grade_all_and_the_gradescope_zip_grade_week6(graded, tmp_path):
    """grade-all over a small class gives each student the score `grade` gave; a Gradescope zip built for week 6
    grades week 6 by itself (run_autograder reads assignment.txt: no AUTOGRADER_ASSIGNMENT in its environment)."""
    import shutil
    import zipfile

    folder = tmp_path / "submissions"
    folder.mkdir()
    class_ = {"ann": "honest", "ben": "blank", "cy": "transposed"}
    for student, kind in class_.items():
        nbformat.write(NOTEBOOKS[kind](), folder / f"{student}.ipynb")
    out = tmp_path / "grades.csv"
    zip_path = tmp_path / "autograder.zip"
    runs = [[sys.executable, "-m", "autograder", "grade-all", str(folder), "--out", str(out), "--jobs", "1"],
            [sys.executable, "-m", "autograder.flows.gradescope.build", "--out", str(zip_path)]]
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(lambda argv: subprocess.run(argv, cwd=ROOT, env=_env(), capture_output=True, text=True,
                                                         timeout=300), runs))
    for run in done:
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    import csv
    rows = {row["student"]: row for row in csv.DictReader(out.open())}
    for student, kind in class_.items():
        assert float(rows[student]["total"]) == graded[kind]["score"], (student, rows[student])
        for part, score in _by_part(graded[kind]).items():
            assert float(rows[student][part]) == score, (student, part, rows[student])

    root = tmp_path / "gradescope"
    with zipfile.ZipFile(zip_path) as archive:
        names = archive.namelist()
        assert archive.read("assignment.txt").decode().strip() == WEEK6.package
        archive.extractall(root / "source")
    assert f"{WEEK6.suites}/test_model.py" in names and not any(n.startswith(f"{load().suites}/") for n in names), names
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    (root / "run_autograder").chmod(0o755)
    (root / "submission").mkdir()
    (root / "results").mkdir()
    nbformat.write(NOTEBOOKS["honest"](), root / "submission" / f"{WEEK6.name}.ipynb")
    env = {k: v for k, v in os.environ.items() if k not in (ASSIGNMENT_VARIABLE, "PYTHONPATH")}
    env.update(GRADESCOPE_ROOT=str(root), GRADESCOPE_PYTHON=sys.executable)
    run = subprocess.run([str(root / "run_autograder")], cwd=root, env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == TOTAL, results["output"]
    assert [f"{part}: {score:g} / {score:g}" for part, score in _by_part(graded["honest"]).items()] == \
        results["output"].splitlines()[1:4], results["output"]


def test_the_student_notebook_is_what_the_release_generates():
    """Week 6's release (`release`: its Assignment.release, the shared tooling run for week 6): the instructor notebook from the notebook source and
    the reference, the real nbgrader generate_assignment, the leak check, and no drift from the committed notebook."""
    run = subprocess.run([sys.executable, "-m", "autograder", "release"], cwd=ROOT, env=_env(), capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    assert "Release ready." in run.stdout and "tokens 20, bigram 40, model 40 (total 100" in run.stdout, run.stdout
    solutions = [cell.source for cell in nbformat.read(STUDENT_NB, as_version=4).cells
                 if cell.metadata.get("nbgrader", {}).get("solution")]
    assert len(solutions) == len(WEEK6.parts) and all("raise NotImplementedError()" in s for s in solutions)
    assert not any(line in s for s in solutions for line in ("itos = sorted(set(text))", "with torch.no_grad():"))


def test_week6_student_ci_checks_with_its_own_parts_file(tmp_path):
    """The student-CI template for week 6 (`make student-repo` with AUTOGRADER_ASSIGNMENT): the template's
    public_checks.py with week 6's committed parts file (what its release generates) runs the notebook as a
    student would: the honest notebook passes every part, the blank one none."""
    import shutil

    template = ROOT / "templates" / "student-ci"
    from solutions.release.student_ci import ci_parts
    parts_file = ci_parts(WEEK6.name)
    assert parts_file != template / ".github" / "scripts" / "parts.json" and parts_file.is_file()
    parts = json.loads(parts_file.read_text())["parts"]
    assert {p: e["functions"] for p, e in parts.items()} == {p: list(f) for p, f in WEEK6.parts.items()}
    assert sum(e["points"] for e in parts.values()) == TOTAL and all(e["check"] for e in parts.values())

    def run(kind):
        repo = tmp_path / kind
        shutil.copytree(template, repo)
        shutil.copy2(parts_file, repo / ".github" / "scripts" / "parts.json")
        nbformat.write(NOTEBOOKS[kind](), repo / f"{WEEK6.name}.ipynb")
        env = {k: v for k, v in os.environ.items() if k not in (ASSIGNMENT_VARIABLE, "PYTHONPATH", "GRADING")}
        return subprocess.run([sys.executable, ".github/scripts/public_checks.py", f"{WEEK6.name}.ipynb",
                               "--junit-xml", "checks.xml"], cwd=repo, env=env, capture_output=True, text=True,
                              timeout=600)

    with ThreadPoolExecutor(2) as pool:
        honest, blank = pool.map(run, ("honest", "blank"))
    assert honest.returncode == 0 and "3 / 3 parts pass" in honest.stdout, honest.stdout[-3000:] + honest.stderr[-2000:]
    assert blank.returncode == 1 and "0 / 3 parts pass" in blank.stdout, blank.stdout[-3000:] + blank.stderr[-2000:]
    for part in WEEK6.parts:
        assert f"| {part} | ✅ pass | {parts[part]['points']:g} |" in honest.stdout, honest.stdout
