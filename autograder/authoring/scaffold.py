"""`new-assignment NAME`: a new assignment package, solutions/NAME/, that releases and grades as written.

The files come from template/ beside this module (package data: the wheel carries them), every ``.tmpl``
file with ``__NAME__`` and ``__TITLE__`` filled in and the suffix dropped. What it writes is modelled on
week 6 (solutions/week6_bigram/), with two small parts of one tensor function each:

    assignment.py     NAME, PARTS (scale: standardize; distances: pairwise_distances), USES
    __init__.py       ASSIGNMENT = plugin_api.Assignment(...): where each piece is
    reference/        the answers, ### BEGIN SOLUTION / ### END SOLUTION inside each body
    suites/           test_<part>.py with pytestmark = pytest.mark.part(...) and @pytest.mark.points(n)
                      beside each test (PyTorch itself as the oracle, float64, distinct sizes),
                      tolerances.py (each tolerance with its reason), expect.py, conftest.py
    notebook/NAME.md  the notebook source (setup, solution, check, graded, lab and code cells)
    lab.py            the given lab code (the worker runs it; the notebook holds a copy)
    served.py         what student functions are handed besides values: no models
    release.py        the shared release tooling run for this assignment (plus its student-CI parts file)

Nothing under autograder/ changes: the engine finds the package by $AUTOGRADER_ASSIGNMENT.
"""
from __future__ import annotations

import argparse
import keyword
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ..assignment import INSTALLED, ROOT

TEMPLATE = Path(__file__).with_name("template")
SUFFIX = ".tmpl"
NAME_RULE = re.compile(r"[a-z][a-z0-9_]*[a-z0-9]")
MAX_LENGTH = 40
EXIT_BAD_NAME = 2


@dataclass(frozen=True)
class NewAssignmentOptions:
    name: str


def name_problem(name: str) -> str:
    """Why ``name`` cannot name an assignment package ('' when it can)."""
    if not NAME_RULE.fullmatch(name):
        suggestion = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
        better = f" (e.g. {suggestion})" if suggestion and NAME_RULE.fullmatch(suggestion) and \
            not suggestion[0].isdigit() else ""
        return (f"{name!r} is not a valid assignment name: lower-case letters, digits and underscores, starting "
                f"with a letter, like week8_rnn{better}. It names a Python package, the notebook file and the "
                "nbgrader folder.")
    if keyword.iskeyword(name):
        return f"{name!r} is a Python keyword; it cannot name a package"
    if len(name) > MAX_LENGTH:
        return f"{name!r} is longer than {MAX_LENGTH} characters"
    return ""


def title_of(name: str) -> str:
    """week8_rnn -> 'Week 8 — rnn'; any other name, its words."""
    week = re.fullmatch(r"week(\d+)_(\w+)", name)
    if week:
        return f"Week {week.group(1)} — {week.group(2).replace('_', ' ')}"
    return name.replace("_", " ").capitalize()


def rendered(name: str) -> dict[str, str]:
    """{path inside solutions/NAME/: text} of every template file, filled in."""
    title = title_of(name)
    files = {}
    for path in sorted(TEMPLATE.rglob(f"*{SUFFIX}")):
        relative = path.relative_to(TEMPLATE).as_posix()[:-len(SUFFIX)].replace("__NAME__", name)
        files[relative] = path.read_text(encoding="utf-8").replace("__NAME__", name).replace("__TITLE__", title)
    return files


def scaffold(name: str, root: Path = ROOT) -> Path:
    """Write solutions/NAME/ under ``root``; the package's folder. ValueError says why not (nothing written)."""
    problem = name_problem(name)
    if problem:
        raise ValueError(problem)
    package = root / "solutions" / name
    for taken in (package, root / "solutions" / f"{name}.py", root / "assignments" / name):
        if taken.exists():
            raise ValueError(f"{taken.relative_to(root)} already exists: choose another name, or edit that "
                             "assignment (docs/authoring.md)")
    files = rendered(name)
    if not files:
        raise ValueError(f"no template files in {TEMPLATE} (a broken installation)")
    for relative, text in files.items():
        target = package / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return package


def run(options: NewAssignmentOptions) -> int:
    if INSTALLED:
        print(f"new-assignment writes an assignment package into a checkout; this is an installed package ({ROOT}): "
              "run it in the repository", file=sys.stderr)
        return EXIT_BAD_NAME
    try:
        package = scaffold(options.name)
    except ValueError as why:
        print(f"new-assignment: {why}", file=sys.stderr)
        return EXIT_BAD_NAME
    shown = package.relative_to(ROOT).as_posix()
    print(f"wrote {shown}/ ({len(rendered(options.name))} files); nothing under autograder/ changed.")
    dotted = shown.replace("/", ".")
    print("Next (docs/authoring.md): edit the parts, then release and check it:")
    print(f"  AUTOGRADER_ASSIGNMENT={dotted} .venv/bin/python -m autograder release --update")
    print(f"  AUTOGRADER_ASSIGNMENT={dotted} .venv/bin/python -m autograder check-assignment")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "new-assignment", help="write a new assignment package, solutions/NAME/, that releases and grades as "
                               "written (docs/authoring.md)", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", metavar="NAME", help="the assignment's name, e.g. week8_rnn: its package "
                                                     "solutions/NAME, notebook NAME.ipynb, nbgrader folder")
    parser.set_defaults(handler=run, options=NewAssignmentOptions)
