"""The week-7 lab: a tiny causal transformer learning modular counting.

``lab.py`` is self-contained on purpose: the notebook shows it to students as given
code, and the grader ships its source text into the sandboxed worker, which trains
it with the student's mask, shift and loss.
"""
