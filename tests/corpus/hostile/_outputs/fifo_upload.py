"""A named pipe (FIFO) named like the notebook: a reader that opened it would block forever; refused at once."""

from autograder.assignment import NAME
UPLOAD = {"name": f"{NAME}.ipynb", "kind": "fifo"}
STATUS = "not-a-notebook"
MESSAGE = f"{NAME}.ipynb is a named pipe (FIFO), not a regular file; upload the notebook file itself"
