"""A top-level cell that leaves 64 sleeping processes (subprocess.Popen sleep, some in new sessions without the environment; os.fork children that setsid, double forks): attacks process cleanup; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
ADD = [(None, '''
import os
import subprocess
import time

for i in range(32):
    try:
        subprocess.Popen(["sleep", "1000"], start_new_session=bool(i % 2), env={} if i % 4 == 0 else None,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        pass
for i in range(32):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        try:
            os.setsid()
            if i % 2 and os.fork():  # double fork: the grandchild is orphaned
                os._exit(0)
            time.sleep(1000)
        finally:
            os._exit(0)
''')]
