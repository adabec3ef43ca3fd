"""A top-level cell fills its scratch file system with 24 unnamed 64 MiB files (O_TMPFILE) and holds them open (red team of issue 22: without a private tmpfs, 1.5 GiB went past the 256 MiB scratch cap unseen, since no directory shows them): attacks the disk and memory budget; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["UNNAMED: held"]
ADD = [(None, '''
import os
import time

_held, _block = [], b"\\xa5" * (1 << 20)
for _ in range(24):
    try:
        _fd = os.open(os.environ.get("TMPDIR", "."), os.O_TMPFILE | os.O_RDWR, 0o600)
        for _ in range(64):
            os.write(_fd, _block)
        _held.append(_fd)
    except OSError:
        break
time.sleep(3)
if len(_held) * 64 > 300:
    raise RuntimeError(f"UNNAMED: held {len(_held) * 64} MiB in {len(_held)} unnamed files")
raise RuntimeError(f"unnamed files: {len(_held) * 64} MiB before the file system said no")
''')]
