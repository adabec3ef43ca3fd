"""Retired: hidden tests never run inside a student's kernel any more.

The test cells of the instructor notebook still hold `from autograder.flows.nbgrader_cell
import grade_part` (the hook line the isolated kernel recognises), but the kernel nbgrader
runs (the assignment's isolated kernel, autograder/flows/nbgrader/kernel.py) executes no code. Anything
that really imports this module -- a notebook autograded in an ordinary Python kernel --
fails loudly instead of grading where the student's code could interfere.
"""
raise ImportError("autograder.flows.nbgrader_cell is retired: the hidden tests never run in the student's kernel. "
                  "Autograde with `make nbgrader-autograde` (python -m autograder.flows.nbgrader), whose isolated "
                  "kernel answers each test cell with the sandboxed grade.")
