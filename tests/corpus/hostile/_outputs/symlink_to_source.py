"""An upload that is a symbolic link to a file of the autograder's own source (the trusted grader would read it): refused with the same message in every flow; no line of the target reaches any output."""

from autograder.assignment import NAME
UPLOAD = {"name": f"{NAME}.ipynb", "kind": "symlink", "target": "autograder/engine/grade.py"}
STATUS = "not-a-notebook"
MESSAGE = f"{NAME}.ipynb is a symbolic link, not a regular file; upload the notebook file itself"
