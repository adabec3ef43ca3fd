"""What the hidden suites contain: every test's part, points and student-facing title.

The points live beside each test (``@pytest.mark.points``); everything else that needs
them (the notebook's graded cells, the results, the README table) asks this module.
"""
import io
from contextlib import redirect_stdout
from dataclasses import dataclass

import pytest

from ..assignment import PART_IDS as PARTS, SUITES


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


class _Collector:
    def __init__(self):
        self.tests = []

    def pytest_collection_modifyitems(self, items):
        self.tests = [describe(item) for item in items]


class Recorder:
    """Plugin for a grading run: remembers the catalog from that run's own collection.

    It sees every item before any part filter deselects some, and only a collection
    without errors counts, so what it records is what ``catalog()`` would collect.
    """

    def __init__(self):
        self.tests, self.failed = None, False

    def pytest_collectreport(self, report):
        self.failed = self.failed or report.failed

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items):
        try:
            self.tests = tuple(describe(item) for item in items)
        except RuntimeError:
            self.tests = None  # a suite bug: catalog() collects on its own and reports it

    def remember(self):
        if self.tests is not None and not self.failed and not _cache:
            _cache.append(self.tests)


_cache = []  # the catalog, once known: collected by catalog() or recorded by the first grading run


def catalog():
    if not _cache:
        collector = _Collector()
        with redirect_stdout(io.StringIO()):
            code = pytest.main([str(SUITES), "--collect-only", "-q", "-p", "no:cacheprovider", "--assert=plain"],
                               plugins=[collector])
        if code != 0:
            raise RuntimeError(f"collecting the hidden suites failed (pytest exit {code})")
        if not _cache:
            _cache.append(tuple(collector.tests))
    return _cache[0]


def part_points():
    """{part: total points}, in notebook order."""
    totals = {part: 0.0 for part in PARTS}
    for test in catalog():
        totals[test.part] += test.points
    return totals
