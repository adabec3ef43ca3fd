"""Authoring an assignment without touching the engine (docs/authoring.md is the guide).

    scaffold.py   `new-assignment NAME`: writes solutions/NAME/, a minimal, complete assignment package
                  (facts, reference, hidden suites with points and tolerances, notebook source, lab, served
                  module, release module) from the files of template/, which release and grade as written
    check.py      `check-assignment`: the current assignment ($AUTOGRADER_ASSIGNMENT) released (no leaks, the
                  parts agree, no drift of the committed files), then its reference notebook graded (full
                  marks) and its blank student notebook graded (0), each by the real `grade` command

Both are subcommands of the one CLI (autograder/cli.py registers them). Neither imports an assignment by
name: the scaffold only writes files, the check reaches the assignment through ``autograder.assignment``.
"""
