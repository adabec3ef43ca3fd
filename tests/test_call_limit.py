"""The per-call limit of the settings (--call-seconds) holds for every call, the training run's included."""
import json
import subprocess
import sys

import nbformat
import pytest

from autograder.assignment import ROOT
from tests.corpus import solution_cell, write_notebook

pytestmark = pytest.mark.training

# The honest loss, except that its first call with a gradient (the training run's first step: only
# training asks for one) sleeps well past the limit the grade is given below.
SLOW_FIRST_STEP = '''

_honest_next_token_loss = next_token_loss
_slept = []


def next_token_loss(logits, targets):
    if logits.requires_grad and not _slept:
        _slept.append(True)
        import time
        time.sleep(6)
    return _honest_next_token_loss(logits, targets)
'''


def test_the_call_limit_reaches_the_training_run(tmp_path, solution_notebook):
    nb = nbformat.read(solution_notebook, as_version=4)
    cell = solution_cell(nb, "targets")
    cell.source += SLOW_FIRST_STEP
    path = write_notebook(nb, tmp_path / "slow_step.ipynb")
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(path), "--part", "training",
                          "--call-seconds", "2", "--out", str(tmp_path / "results.json")],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    results = json.loads((tmp_path / "results.json").read_text())
    said = "`next_token_loss` ran past its time limit (2 s)"
    assert results["score"] == 0, results
    assert all(test["output"] == said for test in results["tests"]), results
    assert said in run.stdout, run.stdout
