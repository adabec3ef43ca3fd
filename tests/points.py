"""Points and totals as the hidden suites declare them (``@pytest.mark.points`` beside each test).

The package's tests read these, never literals: changing a test's points and running
``make release UPDATE=1`` leaves them green (issue 12).
"""
from autograder.engine.catalog import part_points


def points(part):
    """The points of one part."""
    return part_points()[part]


def total():
    """The assignment's total."""
    return sum(part_points().values())
