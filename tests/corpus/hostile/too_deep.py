"""A top-level cell nests 2,200 folders (deeper than PATH_MAX) in its work directory and writes 384 MiB below them (found while chasing a CI flake: the watchdog's walk by path took ENAMETOOLONG for a folder removed meanwhile, and 768 MiB went past the 256 MiB disk cap unseen at score 100 in docker-root); where a watchdog walks the scratch directory it now kills the tree (the cell waits up to 4 s to meet a late sample), elsewhere the private tmpfs refuses; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
EXPECT = ["TOODEEP: wrote"]
NEVER = ["MiB below PATH_MAX (all)"]  # all 384 MiB written unseen: where a tmpfs holds it, it refuses first
# Where the watchdog walks the scratch: this folder ends the tree, unless a replayed cell's files over the disk cap
# end it first (the resources group); either way the cell never completes (NEVER).
WATCHDOG = "worker tree killed at its budget: its work directory holds"
ADD = [(None, '''
import os
import time

_written, _why = 0, "all"
try:
    _fd = os.open(".", os.O_RDONLY)
    for _ in range(2200):  # through file descriptors: no path this long can be opened
        os.mkdir("d", 0o700, dir_fd=_fd)
        _below = os.open("d", os.O_RDONLY, dir_fd=_fd)
        os.close(_fd)
        _fd = _below
    for _i in range(12):
        _out = os.open(f"f{_i}", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=_fd)
        for _ in range(32):
            os.write(_out, b"\\x5a" * (1 << 20))
            _written += 1
        os.close(_out)
except OSError as _error:
    _why = _error.strerror
time.sleep(4)
raise RuntimeError(f"TOODEEP: wrote {_written} MiB below PATH_MAX ({_why})")
''')]
