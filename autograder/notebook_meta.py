"""The engine's own key in a notebook cell's metadata: what the release made each cell (``kind``: setup, solution,
check, graded, lab, code; ``model_answer`` for the graders-only cells of the nbgrader feedback), and the title
the feedback shows.

``autograder``; notebooks released while the engine served week 7 alone carry it as ``week7``, and are read the
same (students keep the notebook they were given: a course in its term must not have to hand out a new one).
Written by the release (solutions/release/build.py) and the nbgrader flow; read by both.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

KEY = "autograder"
FORMER_KEYS = ("week7",)  # legacy: the key while the engine served week 7 alone, still read (never written)


def cell_meta(cell: Mapping[str, Any]) -> Mapping[str, Any]:
    """The engine's metadata of ``cell`` (a notebook cell, or any mapping with ``metadata``), under either key."""
    metadata = cell.get("metadata") or {}
    for key in (KEY, *FORMER_KEYS):
        found = metadata.get(key)
        if isinstance(found, Mapping):
            return found
    return {}


def cell_kind(cell: Mapping[str, Any]) -> str | None:
    """What the release made ``cell`` (None for a cell it did not make, or a student's own)."""
    kind = cell_meta(cell).get("kind")
    return kind if isinstance(kind, str) else None
