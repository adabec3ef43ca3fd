"""The corpora the product measures, handed to it as data: ``python -m tests.corpus.measured DIR``.

Writes into DIR:
  corpora.json           the mutants, the correct alternatives and the fresh mutants, in the form
                         solutions/week7_attention/diagnosis/measure.py reads (``measure.load(DIR)``);
  every_part_wrong.ipynb the instructor notebook with one mutant in every graded part but training
                         (bench/bench.py times the diagnosis on it).
`make bench` runs this, then ``bench/bench.py --corpus DIR``; the diagnosis tests call ``corpora()``.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat

from autograder.assignment import INSTRUCTOR_NOTEBOOK
from tests.corpus import Mutant, apply_mutant, write_notebook

EVERY_PART_WRONG = "every_part_wrong.ipynb"
WRONG_PARTS = ("softmax_read", "masks", "multihead", "positions", "targets", "leakage")


def _mutant(m: Mutant) -> dict:
    return {"name": m.name, "part": m.part, "function": m.function, "old": m.old, "new": m.new,
            "affects": list(m.affects)}


def corpora() -> dict:
    """Every corpus the diagnosis is measured on, as plain data."""
    from tests.corpus.alternatives import ALTERNATIVES
    from tests.corpus.mutants import MUTANTS
    from tests.corpus.mutants_fresh import FRESH
    return {"mutants": [_mutant(m) for m in MUTANTS],
            "alternatives": [{"name": a.name, "cells": dict(a.cells)} for a in ALTERNATIVES],
            "fresh": [{**_mutant(m), "expected": m.expected} for m in FRESH]}


def every_part_wrong(source: Path = INSTRUCTOR_NOTEBOOK) -> nbformat.NotebookNode:
    from tests.corpus.mutants import MUTANTS
    nb = nbformat.read(str(source), as_version=4)
    for part in WRONG_PARTS:
        nb = apply_mutant(nb, next(m for m in MUTANTS if m.part == part))
    return nb


def write(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    from solutions.week7_attention.diagnosis.measure import CORPORA_FILE
    (folder / CORPORA_FILE).write_text(json.dumps(corpora(), indent=1) + "\n")
    write_notebook(every_part_wrong(), folder / EVERY_PART_WRONG)
    return folder


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m tests.corpus.measured DIR")
    print(write(Path(sys.argv[1])))
