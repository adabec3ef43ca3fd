"""Top-level cells that look for a note an earlier submission left, then leave one wherever they can (the host's /tmp, /var/tmp and /dev/shm, the instructor's home, the checkout, a System V semaphore, xattrs of readable files): attacks the next submission; every part keeps full points (tests/test_environments.py grades it twice)."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["NOTE FOUND:"]
EXPECT = ["note search done: none found"]
NOTE = '''
import ctypes
import os

PLACES = ["/tmp/HOSTILE_note", "/var/tmp/HOSTILE_note", "/dev/shm/HOSTILE_note", "__HOME__/HOSTILE_note",
          "__REPO__/HOSTILE_note", "__REPO__/build/HOSTILE_note"]
XATTR_ON = ["/etc/hostname", "/usr/bin/env", "__REPO__/README.md"]
libc = ctypes.CDLL(None, use_errno=True)
'''
ADD = [("setup", NOTE + '''
found = [p for p in PLACES if os.path.exists(p)]
for path in XATTR_ON:
    try:
        if os.getxattr(path, "user.hostile_note"):
            found.append(f"xattr {path}")
    except OSError:
        pass
if libc.semget(0x7765656B, 0, 0) >= 0:  # IPC key "week"
    found.append("semaphore")
if found:
    raise RuntimeError("NOTE FOUND: " + ", ".join(found))
raise RuntimeError("note search done: none found")
'''), (None, NOTE + '''
for path in PLACES:
    try:
        with open(path, "w") as handle:
            handle.write("a note for the next submission")
    except OSError:
        pass
for path in XATTR_ON:
    try:
        os.setxattr(path, "user.hostile_note", b"1")
    except OSError:
        pass
libc.semget(0x7765656B, 1, 0o1666)  # IPC_CREAT
''')]
