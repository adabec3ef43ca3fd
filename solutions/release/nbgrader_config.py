# nbgrader configuration of the generated course directory (copied there by `make release`).
import os

c = get_config()  # noqa: F821 - provided by nbgrader
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "week7"
# Student notebooks carry no outputs; test cells are restored from the source at autograde time.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# week7_attention is graded in the sandbox by the plain nbgrader commands (autograde, the formgrader's
# Autograde button): the two lines `python -m autograder install-nbgrader COURSE` adds to any course
# (autograder/flows/nbgrader/config.py). Every other assignment of a course stays nbgrader's own.
from autograder.flows.nbgrader.config import grade_in_sandbox  # noqa: E402
grade_in_sandbox(c)
# week6_bigram, the checkout's second assignment, in the same course (`make release` generates both): graded in
# the sandbox by its own package, the line naming it (AUTOGRADER_ASSIGNMENT=solutions.week6_bigram python -m
# autograder install-nbgrader COURSE writes the same line into a course of your own).
grade_in_sandbox(c, "solutions.week6_bigram")
