"""A top-level cell starts a helper that leaves the worker's process group and, once the worker is killed, keeps changing its pid by forking (red team of issue 22: without a PID namespace it outlived its grade, kept its keeper waiting for ever, and 100 of them in their own sessions slowed a batch's neighbours 40x): attacks the grader's clean-up; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["OUTLIVED:"]
EXPECT = ["group attempt done"]
ADD = [(None, '''
import os
import subprocess
import sys

_runner = """
import os, sys, time
os.read(int(sys.argv[1]), 1)  # returns when the worker is gone
end = time.monotonic() + 20
while time.monotonic() < end:  # change pids faster than a scan of /proc
    try:
        if os.fork():
            os._exit(0)
    except OSError:
        time.sleep(0.0005)
with open(sys.argv[2], "w") as note:  # the test looks for processes; this is for whoever reads the scratch
    note.write("OUTLIVED: the worker by 20 s")
"""
_r, _w = os.pipe()
_left = "left the group"
try:
    subprocess.Popen([sys.executable, "-S", "-c", _runner, str(_r), os.path.join(os.getcwd(), "outlived")],
                     pass_fds=(_r,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     process_group=0)
except OSError as err:
    _left = f"could not leave the group ({type(err).__name__})"
    subprocess.Popen([sys.executable, "-S", "-c", _runner, str(_r), os.path.join(os.getcwd(), "outlived")],
                     pass_fds=(_r,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(_r)  # the worker keeps _w open until it dies
raise RuntimeError(f"group attempt done: {_left}")
''')]
