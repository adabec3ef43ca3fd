"""A top-level cell that SIGKILLs every process it can name (kill -1, its group, guessed pids, itself): attacks the grader and its worker; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
ADD = [(None, '''
import os
import signal

for target in [-1, 0, os.getppid(), *range(2, 4096)]:
    try:
        if target <= 0:
            os.killpg(0, signal.SIGKILL) if target == 0 else os.kill(-1, signal.SIGKILL)
        elif target != os.getpid():
            os.kill(target, signal.SIGKILL)
    except (OSError, ValueError):
        pass
os.kill(os.getpid(), signal.SIGTERM)
''')]
