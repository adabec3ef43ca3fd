"""A small class for the class report and LMS tests: real notebooks built from the release and the solution.

    alice/week7_attention.ipynb                            the solution
    bob.ipynb                                              the blank release
    carol.ipynb                                            causal mask with diagonal=0 (masks, training)
    dave/week7_attention.ipynb                             no 1/sqrt(d_k) (softmax_read and what uses it)
    leo.ipynb                                              not a notebook (plain text)
    smithjane_12345_678901_week7_attention.ipynb           a Canvas upload: the solution
    doejohn_late_22222_333333_week7_attention.ipynb        a late Canvas upload: the blank release
    <img src=x onerror=alert(1)>.ipynb                     a hostile name, not on the roster: carol's mistake

The roster has each of them but the hostile name, johndoe (matched to doejohn's upload by
its Canvas user id 22222, not by name) and zoe, who handed in nothing.
"""
import csv

import nbformat

from autograder.assignment import NAME as ASSIGNMENT
from tests.batch.submissions import MASK_DIAGONAL, NO_SQRT, filled

HOSTILE = "<img src=x onerror=alert(1)>"

EXPECTED = {  # student as grade-all reports it -> (status, category in the report)
    "alice": ("graded", "attempted"), "bob": ("graded", "blank"), "carol": ("graded", "attempted"),
    "dave": ("graded", "attempted"), "leo": ("not-a-notebook", "none"), "smithjane": ("graded", "attempted"),
    "doejohn": ("graded", "blank"), HOSTILE: ("graded", "attempted"),
}

ROSTER = [
    {"student": "alice", "name": "Liddell, Alice", "email": "alice@example.edu", "lms_id": "10001"},
    {"student": "bob", "name": "Builder, Bob", "email": "bob@example.edu", "lms_id": "10002"},
    {"student": "carol", "name": "Danvers, Carol", "email": "carol@example.edu", "lms_id": "10003"},
    {"student": "dave", "name": "Bowman, Dave", "email": "dave@example.edu", "lms_id": "10004"},
    {"student": "leo", "name": "Tolstoy, Leo", "email": "leo@example.edu", "lms_id": "10005"},
    {"student": "smithjane", "name": "Smith, Jane", "email": "jane@example.edu", "lms_id": "12345"},
    {"student": "johndoe", "name": "Doe, John", "email": "john@example.edu", "lms_id": "22222"},
    {"student": "zoe", "name": "Saldana, Zoe", "email": "=cmd|' /C calc'!A0", "lms_id": "10009"},
]


def build(folder, release_path, solution_path):
    """Write the submissions under ``folder`` and roster.csv beside it; return the roster's path."""
    release = nbformat.read(release_path, as_version=4)
    solution = nbformat.read(solution_path, as_version=4)
    good = nbformat.writes(filled(release, solution))
    blank = nbformat.writes(release)
    mask = nbformat.writes(filled(release, solution, MASK_DIAGONAL))
    name = f"{ASSIGNMENT}.ipynb"
    files = {
        f"alice/{name}": good,
        "bob.ipynb": blank,
        "carol.ipynb": mask,
        f"dave/{name}": nbformat.writes(filled(release, solution, NO_SQRT)),
        "leo.ipynb": "These are my answers, I could not get Jupyter to work.\n",
        f"smithjane_12345_678901_{name}": good,
        f"doejohn_late_22222_333333_{name}": blank,
        f"{HOSTILE}.ipynb": mask,
    }
    for relative, content in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    roster = folder.parent / "roster.csv"
    write_roster(roster, ROSTER)
    return roster


def write_roster(path, entries):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["student", "name", "email", "lms_id"])
        writer.writeheader()
        writer.writerows(entries)
