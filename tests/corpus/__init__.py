"""The mistake corpus: typical wrong answers (mutants) and other correct idioms (alternatives).

A mutant is ONE text edit inside ONE graded function of the instructor notebook; an
alternative replaces whole solution cells. Both are turned into notebooks here and
graded by tests/test_mutants.py through the real CLI.
"""
import copy
import re
from dataclasses import dataclass

import nbformat

from autograder.assignment import PART_IDS as PARTS
from autograder.assignment import PARTS as FUNCTIONS  # part -> graded function names


@dataclass(frozen=True)
class Mutant:
    name: str  # unique id, used as the pytest id and the notebook's file name
    part: str  # the part whose hidden tests must catch it
    function: str  # the one graded function that is edited
    old: str  # exact text inside that function (one or more whole lines); must occur once
    new: str  # what replaces it
    why: str  # the mistake, in one line
    affects: tuple = ()  # other parts that may legitimately lose points (they call this function)

    def __post_init__(self):
        assert self.part in PARTS and all(p in PARTS for p in self.affects), self
        assert self.function in FUNCTIONS[self.part], f"{self.name}: {self.function} is not graded in {self.part}"


@dataclass(frozen=True)
class Alternative:
    name: str
    why: str
    cells: dict  # part -> the full source of that part's solution cell


def solution_cell(nb, part):
    cells = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == f"{part}_solution"]
    assert len(cells) == 1, f"expected one solution cell for {part}, found {len(cells)}"
    assert cells[0].metadata["nbgrader"]["solution"] is True
    return cells[0]


def function_span(source, name):
    """(start, end) of `def name(...)` up to the next top-level statement in a cell's source."""
    start = source.find(f"def {name}(")
    assert start >= 0 and (start == 0 or source[start - 1] == "\n"), f"no top-level def {name} in the cell"
    following = re.compile(r"^\S", re.M).search(source, start + 1)
    return start, following.start() if following else len(source)


def apply_mutant(nb, mutant):
    """A copy of ``nb`` with the mutant's single edit applied (fails loudly if the text moved)."""
    nb = copy.deepcopy(nb)
    cell = solution_cell(nb, mutant.part)
    start, end = function_span(cell.source, mutant.function)
    body = cell.source[start:end]
    found = body.count(mutant.old)
    assert found == 1, f"mutant {mutant.name}: {mutant.old!r} occurs {found} times in {mutant.function}"
    cell.source = cell.source[:start] + body.replace(mutant.old, mutant.new) + cell.source[end:]
    return nb


def apply_alternative(nb, alternative):
    nb = copy.deepcopy(nb)
    for part, source in alternative.cells.items():
        cell = solution_cell(nb, part)
        for name in FUNCTIONS[part]:
            assert f"def {name}(" in source, f"alternative {alternative.name} drops {name} from {part}"
        cell.source = source.strip("\n")
    return nb


def write_notebook(nb, path):
    path.write_text(nbformat.writes(nb) + "\n")
    return path
