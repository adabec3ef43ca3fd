"""What the hidden suites contain: every test's part, points and student-facing title.

The points live beside each test (``@pytest.mark.points``); everything else that needs
them (the notebook's graded cells, the results, docs/assignment.md's table) asks this module.
"""
from dataclasses import dataclass

from ..assignment import PART_IDS as PARTS


@dataclass(frozen=True)
class TestInfo:
    nodeid: str
    part: str
    points: float
    title: str


def describe(item):
    """TestInfo of a collected pytest item; a test without part or points is a suite bug."""
    part = item.get_closest_marker("part")
    points = item.get_closest_marker("points")
    if part is None or points is None or part.args[0] not in PARTS:
        raise RuntimeError(f"{item.nodeid}: every hidden test needs @points(n) and a module part marker")
    doc = (getattr(item.function, "__doc__", None) or item.name).strip().splitlines()[0].strip()
    if getattr(item, "callspec", None) is not None:
        doc = f"{doc} [{item.callspec.id}]"
    return TestInfo(item.nodeid, part.args[0], float(points.args[0]), doc)


_cache: list = []  # the catalog, once known: recorded by this process's suite session from its collection


def remember(tests):
    """Record the catalog (a suite session's collection, every item; it is the same in every session)."""
    if not _cache:
        _cache.append(tuple(tests))


def catalog():
    """Every hidden test (TestInfo), in the order the suites run them: collected once per process,
    by the process's suite session (engine/suite_session.py), which then grades with that collection."""
    if not _cache:
        from .suite_session import shared
        shared()  # its collection records the catalog (remember), or raises if the suites do not collect
    return _cache[0]


def part_points():
    """{part: total points}, in notebook order."""
    totals = {part: 0.0 for part in PARTS}
    for test in catalog():
        totals[test.part] += test.points
    return totals
