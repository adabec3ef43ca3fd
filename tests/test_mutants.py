"""The mistake corpus through the real CLI: every mutant loses points in its own part and only
where it may, every alternative idiom scores 100, the solution scores 100, the released
student notebook scores 0 without crashing, and grading twice gives the same scores.

All notebooks the selected tests need are graded once per session by `graded` (below);
`pytest tests -m masks` grades only the masks mutants (plus the alternatives and the
solution that touch masks).
"""
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from autograder import PARTS
from autograder.engine.catalog import part_points
from tests.corpus import apply_alternative, apply_mutant, write_notebook
from tests.corpus.alternatives import ALTERNATIVES
from tests.corpus.mutants import MUTANTS

from autograder.assignment import ROOT
from tests.points import total
JOBS = 2  # notebooks graded at the same time
NOTEBOOK_TIMEOUT = 900  # seconds per notebook, PyTorch start-up included
TWICE = "prefix_no_eval"  # graded twice: its dropout makes it the likeliest to vary between runs

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Case:
    name: str
    kind: str  # "mutant" | "alternative" | "solution" | "student" | "twice"
    payload: object = None

    def __str__(self):
        return self.name


# --- the one place that grades notebooks ------------------------------------------------------
# "grade-all" (the default): one `python -m autograder grade-all DIR --jobs JOBS`, reading each
# notebook's results.json from its feedback folder; the warm grading processes are shared, so
# the whole corpus takes ~1.5 min. "grade" (CORPUS_GRADER=grade): one `python -m autograder
# grade` per notebook, JOBS at a time, each a fresh process (~35 min for the corpus).
GRADER = os.environ.get("CORPUS_GRADER", "grade-all")


def grade_notebooks(notebooks, workdir):
    """{name: notebook path} -> {name: parsed results.json}, graded by the real CLI."""
    return (_grade_all if GRADER == "grade-all" else _grade_each)(notebooks, workdir)


def _run(args, log, notebooks=1):
    run = subprocess.run([sys.executable, "-m", "autograder", *map(str, args)], cwd=ROOT,
                         env=dict(os.environ, PYTHONHASHSEED="0"), capture_output=True, text=True,
                         timeout=NOTEBOOK_TIMEOUT * notebooks)
    log.write_text(run.stdout + run.stderr)
    assert run.returncode == 0, f"`autograder {args[0]}` exited {run.returncode}:\n{run.stderr[-3000:]}"


def _grade_each(notebooks, workdir):
    def grade(item):
        name, path = item
        out = workdir / f"{name}.results.json"
        _run(["grade", path, "--out", out], workdir / f"{name}.log")
        return name, json.loads(out.read_text())

    with ThreadPoolExecutor(JOBS) as pool:
        return dict(pool.map(grade, sorted(notebooks.items())))


def _grade_all(notebooks, workdir):
    """DIR/<name>.ipynb makes <name> the student id; distinct file names are graded separately."""
    folder = workdir / "submissions"
    folder.mkdir()
    for name, path in notebooks.items():
        shutil.copy(path, folder / f"{name}.ipynb")
    _run(["grade-all", folder, "--out", workdir / "grades.csv", "--jobs", JOBS], workdir / "grade-all.log",
         len(notebooks))
    return {name: json.loads((workdir / "grades_feedback" / name / "results.json").read_text()) for name in notebooks}
# ----------------------------------------------------------------------------------------------


def _notebook(case, solution, student_path):
    if case.kind == "mutant":
        return apply_mutant(solution, case.payload)
    if case.kind == "alternative":
        return apply_alternative(solution, case.payload)
    if case.kind == "student":
        return nbformat.read(student_path, as_version=4)
    return solution  # "solution" and both runs of "twice" (below)


@pytest.fixture(scope="session")
def graded(request, tmp_path_factory, solution_notebook, student_notebook):
    """{notebook name: results.json} for every case the selected tests use, graded in one go."""
    cases = {}
    for item in request.session.items:
        case = getattr(getattr(item, "callspec", None), "params", {}).get("case")
        if isinstance(case, Case):
            assert cases.setdefault(case.name, case) == case, f"two cases named {case.name}"
    workdir = tmp_path_factory.mktemp("corpus")
    solution = nbformat.read(solution_notebook, as_version=4)
    notebooks = {}
    for case in cases.values():
        if case.kind == "twice":  # the same submission, graded twice as two files
            source = apply_mutant(solution, case.payload)
            notebooks[f"{case.name}-1"] = write_notebook(source, workdir / f"{case.name}-1.ipynb")
            notebooks[f"{case.name}-2"] = write_notebook(source, workdir / f"{case.name}-2.ipynb")
        elif case.kind == "student":
            notebooks[case.name] = Path(shutil.copy(student_notebook, workdir / f"{case.name}.ipynb"))
        else:
            notebooks[case.name] = write_notebook(_notebook(case, solution, student_notebook),
                                                  workdir / f"{case.name}.ipynb")
    return grade_notebooks(notebooks, workdir)


def by_part(results):
    """{part: (score, max_score)} from a results.json; a grader crash fails the test at once."""
    totals = {}
    for test in results["tests"]:
        (part,) = test["tags"]
        assert part in PARTS, f"not a graded part: {part!r} ({test['name']}: {test.get('output', '')[:300]})"
        got, top = totals.get(part, (0.0, 0.0))
        totals[part] = (got + test["score"], top + test["max_score"])
    assert {p: top for p, (_, top) in totals.items()} == part_points(), "every part's tests must be in the results"
    return totals


def failures(results, parts=PARTS):
    return "\n".join(f"  [{t['tags'][0]}] {t['name']}: {t['output'][:200]}" for t in results["tests"]
                     if t["score"] < t["max_score"] and t["tags"][0] in parts)


def _marks(*parts):
    return [getattr(pytest.mark, p) for p in parts]


MUTANT_CASES = [pytest.param(Case(m.name, "mutant", m), marks=_marks(m.part), id=m.name) for m in MUTANTS]
ALTERNATIVE_CASES = [pytest.param(Case(a.name, "alternative", a), marks=_marks(*a.cells), id=a.name)
                     for a in ALTERNATIVES]


@pytest.mark.parametrize("case", MUTANT_CASES)
def test_mutant_is_caught_in_its_part_only(case, graded):
    mutant, results = case.payload, graded[case.name]
    parts = by_part(results)
    got, top = parts[mutant.part]
    assert got < top, (f"NOT CAUGHT: {mutant.name} ({mutant.why}) keeps {got:g} / {top:g} in {mutant.part}; "
                       f"its suite has no check for this mistake")
    collateral = {p: v for p, v in parts.items() if p not in (mutant.part, *mutant.affects) and v[0] < v[1]}
    assert not collateral, (f"{mutant.name} ({mutant.why}) also lost points in {sorted(collateral)}, which do not "
                            f"use {mutant.function}:\n{failures(results, collateral)}")


@pytest.mark.parametrize("case", ALTERNATIVE_CASES)
def test_alternative_scores_full_marks(case, graded):
    results = graded[case.name]
    by_part(results)
    assert results["score"] == total(), \
        f"{case.name} ({case.payload.why}) scored {results['score']:g}:\n{failures(results)}"


@pytest.mark.parametrize("case", [pytest.param(Case("solution", "solution"), marks=_marks(*PARTS), id="solution")])
def test_solution_scores_full_marks(case, graded):
    results = graded[case.name]
    by_part(results)
    assert results["score"] == total(), failures(results)


@pytest.mark.parametrize("case", [pytest.param(Case("student", "student"), id="released")])
def test_released_student_notebook_scores_zero_without_crashing(case, graded):
    results = graded[case.name]
    parts = by_part(results)  # every hidden test reported, none as an autograder crash
    assert results["score"] == 0 and all(got == 0 for got, _ in parts.values()), failures(results)
    assert not any(t["name"].startswith("Autograder failed") for t in results["tests"]), \
        "the grader itself failed on the unanswered notebook"
    assert all(t["output"] for t in results["tests"]), "every failed test tells the student why"


@pytest.mark.parametrize("case", [pytest.param(Case(f"twice-{TWICE}", "twice",
                                                    next(m for m in MUTANTS if m.name == TWICE)), id=TWICE)])
def test_grading_twice_gives_identical_scores(case, graded):
    first, second = graded[f"{case.name}-1"], graded[f"{case.name}-2"]
    scores = [[(t["name"], t["tags"], t["score"], t["max_score"]) for t in r["tests"]] for r in (first, second)]
    assert scores[0] == scores[1]
    assert first["score"] == second["score"] < total()
