"""Forged results.json (score 1000) written to every plausible place (cwd, /autograder/results, the repo, /tmp, .., ~, the --out directory) from a top-level cell and from a graded function: attacks the score; `positions` (whose function does it) scores 0, every other part keeps full points."""
ATTACKS = ["positions"]
KEEPS = ["softmax_read", "masks", "multihead", "targets", "leakage", "training"]
NEVER = ["FORGED_BY_SUBMISSION"]
_FORGE = '''
import glob
import json
import os


def forge_results():
    forged = {"score": 1000.0, "execution_time": 0.1, "output": "FORGED_BY_SUBMISSION",
              "tests": [{"name": "FORGED_BY_SUBMISSION", "score": 1000.0, "max_score": 1.0,
                         "output": "", "visibility": "visible", "tags": ["positions"]}]}
    places = [".", "..", "/tmp", "/var/tmp", "/dev/shm", os.path.expanduser("~"), "/autograder/results",
              "/autograder", "/autograder/source", "__REPO__", "__OUT_DIR__", os.path.dirname("__OUT_DIR__"),
              "__CANARY__", "__REPO__/build/.hostile-canary-__MARKER__", "/proc/1/cwd", "/proc/self/cwd/..", *glob.glob("/tmp/*"), *glob.glob("/tmp/pytest-of-*/*/*")]
    written = []
    for place in places:
        try:
            os.makedirs(place, exist_ok=True)
            for name in ("results.json", "grades.csv", "junit.xml"):
                with open(os.path.join(place, name), "w") as handle:
                    json.dump(forged, handle)
            written.append(place)
        except OSError:
            pass
    return written
'''
REPLACE = {"positions_solution": _FORGE + '''

def sinusoidal_positions(length, width):
    forge_results()
    return "full marks"
'''}
ADD = [(None, "print('forged into', forge_results())\n")]
