"""Fixtures shared by the hidden suites.

``student`` is the submission under test (see autograder.engine.student). When the
suites run under the grader it is the sandboxed worker; run directly
(``pytest solutions/week7_attention/suites``) it is the reference solution, which must score 100.
"""
import pytest
import torch

import solutions.reference as reference
from solutions.week7_attention.served.probes import seed
from autograder.engine.student import STUDENT_KEY, LocalTransport, Student


def pytest_configure(config):
    config.addinivalue_line("markers", "part(name): the graded part this module belongs to")
    config.addinivalue_line("markers", "points(n): points this test is worth")


@pytest.fixture(scope="session")
def student(request):
    found = request.config.stash.get(STUDENT_KEY, None)
    return found if found is not None else Student(LocalTransport(vars(reference)))


@pytest.fixture(scope="session")
def ref():
    return reference


@pytest.fixture(autouse=True)
def _fixed_seed():
    # Every test draws the same inputs for every submission. Only the CPU generator: on a
    # CPU-only grader torch.manual_seed would also queue seeds for CUDA/XPU/MPS, recording
    # a Python stack trace for each (~3 ms a call, 0.25 s a submission).
    torch.default_generator.manual_seed(seed(20261129))
