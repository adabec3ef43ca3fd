"""A top-level cell that reads its own capability sets (/proc/self/status: inheritable, permitted, effective, ambient) and raises with any it holds: a worker that keeps the grader's uid as root (landlock forced where Python is not open to other uids) kept every capability of root before the outside check of issue 29; attacks the machine; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["CAPS HELD:"]
EXPECT = ["caps: none held"]
ADD = [(None, r'''
_held = {}
for _line in open("/proc/self/status"):
    _name, _, _value = _line.partition(":")
    if _name in ("CapInh", "CapPrm", "CapEff", "CapAmb") and int(_value, 16):
        _held[_name] = _value.strip()
raise RuntimeError(("CAPS HELD: " + str(_held)) if _held else "caps: none held")
''')]
