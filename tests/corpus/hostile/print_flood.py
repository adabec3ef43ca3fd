"""200 MB of printed output (print, sys.__stdout__, os.write to fds 1 and 2) from a top-level cell and from a graded function: attacks the output plumbing; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["FLOODFLOODFLOODFLOODFLOODFLOODFLOODFLOODFLOODFLOODFLOODFLOODFLOODFLOODFLOODFLOOD"]
ADD = [(None, '''
import os
import sys

chunk = "FLOOD" * 200_000  # 1 MB
for _ in range(100):
    print(chunk)
for stream in (sys.__stdout__, sys.__stderr__):
    for _ in range(20):
        stream.write(chunk)
for fd in (1, 2):
    for _ in range(20):
        os.write(fd, chunk.encode())
'''), ("softmax_read_solution", '''
import os as _os

_stable_softmax = stable_softmax


def stable_softmax(scores, dim=-1):
    print("FLOOD" * 200_000)
    _os.write(1, b"FLOOD" * 200_000)
    return _stable_softmax(scores, dim)
''')]
