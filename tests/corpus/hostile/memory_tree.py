"""A top-level cell that forks 3 children which each allocate and touch 1.5 GiB (4.5 GiB across the tree, each process under its own 4 GiB limit): attacks the memory budget of the whole worker tree; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
EXPECT = ["TREE: children ended with"]
ADD = [(None, '''
import os
import time

children = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        try:
            block = bytearray(3 << 29)  # 1.5 GiB
            for at in range(0, len(block), 4096):
                block[at] = 1
            time.sleep(1)
        finally:
            os._exit(0)
    children.append(pid)
raise RuntimeError(f"TREE: children ended with {[os.waitpid(pid, 0)[1] for pid in children]}")
''')]
