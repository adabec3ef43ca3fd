"""What the hidden suites contain: every test's part, points and student-facing title.

The points live beside each test (``@pytest.mark.points``); everything else that needs
them (the notebook's graded cells, the results, docs/assignment.md's table) asks this module.
"""
from ..assignment import PART_IDS as PARTS
from .suite_items import TestInfo, recorded


def catalog() -> tuple[TestInfo, ...]:
    """Every hidden test (TestInfo), in the order the suites run them: collected once per process,
    by the process's suite session (engine/suite_session.py), which then grades with that collection."""
    if recorded() is None:
        from .suite_session import shared
        shared()  # its collection records the catalog (suite_items.remember), or raises if nothing collects
    return recorded()  # type: ignore[return-value]  # shared() recorded it, or raised


def part_points() -> dict[str, float]:
    """{part: total points}, in notebook order."""
    totals = {part: 0.0 for part in PARTS}
    for test in catalog():
        totals[test.part] += test.points
    return totals
