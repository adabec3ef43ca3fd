"""A top-level cell leaves folders in its work directory that the grader may not list or clean: made with mode 0o300 (write and search, no read) or after a umask, around files it wrote, and (where it may) chmod to 0o500 (red team of stop 26: where no namespaces give the worker a private tmpfs, the watchdog could not count what such a folder held, past the disk cap, and rm -rf could not remove it: the scratch directory stayed in the host's /tmp). Where a watchdog watches the scratch directory, it kills the tree at the first sample (the cell waits up to 4 s to meet it: on a loaded machine a sample can come 2 s late, and a kill that lands after the cell ended cost a later call its points); every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
EXPECT = ["LOCKED: made"]
WATCHDOG = "worker tree killed at its budget: its work directory holds a folder the grader may not list"
ADD = [(None, '''
import os
import time

_made = []
try:
    os.mkdir("locked", 0o300)
    with open("locked/kept.bin", "wb") as _out:
        _out.write(b"\\x5a" * (1 << 20))
    _made.append("mkdir 0o300")
except OSError as _error:
    _made.append(f"mkdir 0o300: {_error}")
_old = os.umask(0o477)
try:
    os.makedirs("masked/inner")  # 0o300 each, through the umask
    with open("masked/inner/kept.bin", "wb") as _out:
        _out.write(b"\\x5a" * (1 << 20))
    _made.append("umask")
except OSError as _error:
    _made.append(f"umask: {_error}")
finally:
    os.umask(_old)
try:
    os.makedirs("ro/inner")
    with open("ro/inner/kept.bin", "wb") as _out:
        _out.write(b"\\x5a" * (1 << 20))
    os.chmod("ro", 0o500)
    _made.append("chmod 0o500")
except OSError as _error:  # where seccomp refuses chmod (mode landlock)
    _made.append(f"chmod: {_error}")
time.sleep(4)
raise RuntimeError(f"LOCKED: made {_made}")
''')]
