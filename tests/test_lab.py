"""`make smoke` and `make train`: the lab's report with the reference pieces, as the seed specifies."""
import math
import re
import subprocess
import sys

import pytest

from conftest import ROOT


def report(*args):
    run = subprocess.run([sys.executable, "-m", "solutions.lab", *args], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    text = run.stdout
    causality = float(re.search(r"max prefix change before training: ([\d.e+-]+)", text).group(1))
    val, test = map(float, re.search(r"Validation-selected loss ([\d.]+); reserved test loss ([\d.]+)", text).groups())
    baseline = float(re.search(r"uniform baseline log\(8\) = ([\d.]+)", text).group(1))
    generated = [int(t) for t in re.search(r"Generated from 2: \[([\d, ]+)\]", text).group(1).split(",")]
    return causality, val, test, baseline, generated


@pytest.mark.training
def test_smoke_run_beats_the_baseline():
    causality, val, test, baseline, generated = report("--smoke")
    assert causality < 1e-5
    assert baseline == pytest.approx(math.log(8), abs=1e-4) and round(baseline, 4) == 2.0794
    assert test < baseline and val < baseline
    assert len(generated) == 12 and generated[0] == 2


@pytest.mark.training
@pytest.mark.slow
def test_full_run_learns_to_count():
    causality, val, test, _, generated = report()
    assert causality < 1e-5
    assert test < 0.05
    assert generated == [(2 + i) % 8 for i in range(12)]
