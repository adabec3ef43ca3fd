"""A named pipe (FIFO) named like the notebook: a reader that opened it would block forever; refused at once."""
UPLOAD = {"name": "week7_attention.ipynb", "kind": "fifo"}
STATUS = "not-a-notebook"
MESSAGE = "week7_attention.ipynb is a named pipe (FIFO), not a regular file; upload the notebook file itself"
