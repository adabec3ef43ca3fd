"""A top-level cell that starts a non-daemon thread that never ends (and keeps the CPU busy): attacks the worker's shutdown; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
ADD = [(None, '''
import threading
import time


def forever():
    while True:
        time.sleep(0.05)


threading.Thread(target=forever, daemon=False, name="never-ends").start()
''')]
