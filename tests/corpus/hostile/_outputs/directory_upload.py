"""A directory named like the notebook: refused with the same message in every flow."""

from autograder.assignment import NAME
UPLOAD = {"name": f"{NAME}.ipynb", "kind": "directory"}
STATUS = "not-a-notebook"
MESSAGE = f"{NAME}.ipynb is a directory, not a regular file; upload the notebook file itself"
