"""A top-level cell that deletes every file it can reach from ., .., ~, /tmp, the repo, the venv, the --out directory and a host canary (rmtree and os.remove loops): attacks the grader's files; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["HOSTILE_RAN_AS_ROOT"]
ADD = [(None, '''
import os
import shutil
import sys

# Safety catch for this test corpus only: if the sandbox ever failed to drop root's powers, stop
# here (the test then fails on the marker) instead of deleting the developer's checkout. Root of a
# user namespace of its own, with no capability (mode user namespace), is no such power.
with open("/proc/self/status") as _status:
    _caps = int(next(line for line in _status if line.startswith("CapEff:")).split()[1], 16)
if _caps:
    raise RuntimeError("HOSTILE_RAN_AS_ROOT")
targets = [".", "..", os.path.expanduser("~"), "/tmp", "/var/tmp", "/dev/shm", "__REPO__", "__OUT_DIR__",
           "__CANARY__", "__REPO__/build/.hostile-canary-__MARKER__", sys.prefix, os.path.dirname(sys.prefix), "/autograder"]
removed = 0
for target in targets:
    for folder, dirs, files in os.walk(target, topdown=False):
        for name in files + dirs:
            path = os.path.join(folder, name)
            try:
                os.remove(path) if name in files else os.rmdir(path)
                removed += 1
            except OSError:
                pass
    shutil.rmtree(target, ignore_errors=True)
print("removed", removed)
''')]
