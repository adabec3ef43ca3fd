# nbgrader configuration of the generated course directory (copied there by `make release`).
import os

c = get_config()  # noqa: F821 - provided by nbgrader
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "week7"
c.CourseDirectory.db_assignments = [dict(name="week7_attention")]
# Student notebooks carry no outputs; test cells are restored from the source at autograde time.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
