"""Oracle-only notebooks (tests/corpus/oracle_only/): a function that only calls what it was handed scores nothing.

Each case is the blank student notebook with one part's function implemented by calling the object the
grader hands it, where that object could compute (or once could) the function's own expected answer
(issue 27 item 4: multi_head_self_attention was handed the nn.MultiheadAttention it is compared with,
8 of 16 multihead points; it now gets the layer's parameters, a dict of tensors, and the multihead cases
try the same calls on that). Graded through the real `python -m autograder grade`; the part scores the
case's POINTS (0) and the notebook as a whole nothing more.
"""
import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "corpus"))
import hostile
import oracle_only

from autograder.assignment import STUDENT_NOTEBOOK
from flows.shared import by_part, cli_results

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not STUDENT_NOTEBOOK.exists(), reason="run `make release` first")]
CASES = oracle_only.case_names()


def build(name: str, folder: Path) -> Path:
    """The blank student notebook with case ``name``'s replacements, written to ``folder``."""
    path = folder / f"oracle_{name}.ipynb"
    nbformat.write(hostile.build(STUDENT_NOTEBOOK, [oracle_only.load(name)], {}), str(path))
    return path


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("oracle_only")
    paths = {name: build(name, folder) for name in CASES}
    results = cli_results(list(paths.values()), folder / "results")
    return {name: results[path] for name, path in paths.items()}


def test_every_part_that_hands_over_an_object_has_a_case():
    assert {oracle_only.load(name).PART for name in CASES} >= {"multihead", "leakage"}


@pytest.mark.parametrize("name", CASES)
def test_the_oracle_scores_nothing(graded, name):
    case, results = oracle_only.load(name), graded[name]
    parts = by_part(results)
    earned = [f"{t['name']}: {t['score']}" for t in results["tests"] if t["score"]]
    assert parts.get(case.PART, 0.0) == case.POINTS, f"{name}: {case.PART} scored {parts.get(case.PART)}: {earned}"
    assert float(results["score"]) == case.POINTS, f"{name}: the notebook scored {results['score']}: {earned}"
