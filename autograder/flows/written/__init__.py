"""The written answers (Q1..Q3, graded by hand): extract them, render them for TAs, take hand scores back.

    python -m autograder written SUBMISSIONS_DIR --out written/   (same layouts as grade-all)

  extract.py  read a submission (engine/submission_file.py), find the three answers and the student's
              experiment cells with their saved outputs and plots; no student code is executed
  render.py   HTML through Jinja templates (templates/) and nbconvert's Markdown filter, sanitised
              with nh3, math by a local MathJax (Debian's libjs-mathjax), PDF by headless Chromium
  hand.py     hand scores: the CSV student,q1,q2,q3,comment; load_hand, merge_hand (grade-all --hand)
  command.py  the `written` subcommand

autograder/flows/nbgrader/hand.py writes the same CSV into an nbgrader gradebook.

This module stays light: the CLI imports it on every command to register the subcommand.
"""
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


def register(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    from .command import register as _register

    _register(subparsers)
