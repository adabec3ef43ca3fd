"""A directory named like the notebook: refused with the same message in every flow."""
UPLOAD = {"name": "week7_attention.ipynb", "kind": "directory"}
STATUS = "not-a-notebook"
MESSAGE = "week7_attention.ipynb is a directory, not a regular file; upload the notebook file itself"
