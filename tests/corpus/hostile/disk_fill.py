"""A top-level cell that writes files until the disk refuses (work dir, /tmp, /var/tmp, /dev/shm, one huge file over the file-size limit): attacks the disk; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
ADD = [(None, '''
import os

block = b"\\0" * (1 << 20)
for folder in (".", "/tmp", "/var/tmp", "/dev/shm"):
    for n in range(10_000):
        try:
            with open(os.path.join(folder, f"fill{n}"), "wb") as handle:
                for _ in range(1 << 12):  # up to 4 GiB per file: stopped by the file-size limit
                    handle.write(block)
        except OSError:
            if n > 2:
                break
''')]
