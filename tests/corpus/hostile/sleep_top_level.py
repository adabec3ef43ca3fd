"""A top-level cell that ignores SIGTERM and sleeps for 10**6 s: attacks the notebook run (stopped at the per-cell limit, then skipped); every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
ADD = [("setup", '''
import signal
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
time.sleep(10**6)
''')]
