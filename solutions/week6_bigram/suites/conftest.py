"""Fixtures shared by week 6's hidden suites.

``student`` is the submission under test (autograder.engine.student). Under the grader it is the
sandboxed worker; run directly (``pytest solutions/week6_bigram/suites`` with
``AUTOGRADER_ASSIGNMENT=solutions.week6_bigram``) it is the reference, which must score 100.
"""
import pytest
import torch

import solutions.week6_bigram.reference as reference
from autograder.engine.student import STUDENT_KEY, LocalTransport, Student
from solutions.week6_bigram.served import seed


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
    torch.default_generator.manual_seed(seed(20261206))
