"""A hidden test as the grader knows it (part, points, title), and the collection a suite session recorded.

Its own module so that the suite session (which collects) and the catalog (which asks for a
collection) both depend on it, and not on each other.
"""
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..assignment import PART_IDS as PARTS


@dataclass(frozen=True)
class TestInfo:
    nodeid: str
    part: str
    points: float
    title: str


def describe(item: Any) -> TestInfo:
    """TestInfo of a collected pytest item; a test without part or points is a suite bug."""
    part = item.get_closest_marker("part")
    points = item.get_closest_marker("points")
    if part is None or points is None or part.args[0] not in PARTS:
        raise RuntimeError(f"{item.nodeid}: every hidden test needs @points(n) and a module part marker")
    doc = (getattr(item.function, "__doc__", None) or item.name).strip().splitlines()[0].strip()
    if getattr(item, "callspec", None) is not None:
        doc = f"{doc} [{item.callspec.id}]"
    return TestInfo(item.nodeid, part.args[0], float(points.args[0]), doc)


_cache: list[tuple[TestInfo, ...]] = []  # the catalog, once known: recorded by this process's suite session from its collection


def remember(tests: Iterable[TestInfo]) -> None:
    """Record the catalog (a suite session's collection, every item; it is the same in every session)."""
    if not _cache:
        _cache.append(tuple(tests))


def recorded() -> tuple[TestInfo, ...] | None:
    """The recorded catalog, or None before any suite session collected."""
    return _cache[0] if _cache else None
