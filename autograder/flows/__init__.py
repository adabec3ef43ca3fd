"""Glue between the grading engine and the tools around it: nbgrader, Gradescope, batches."""
