"""sinusoidal_positions imports the hidden reference by the checkout's absolute path and returns its answer (as a non-root grader, this scored 100): attacks secrecy through positions; every other part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = ["positions"]
KEEPS = [p for p in PART_IDS if p != "positions"]
REPLACE = {"positions_solution": '''
import sys

sys.path.insert(0, "__REPO__")


def sinusoidal_positions(length, width):
    import importlib.util
    spec = importlib.util.spec_from_file_location("_stolen", "__REPO__/solutions/reference/positions.py")
    stolen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stolen)  # reads the file: refused where the worker cannot see the checkout
    return stolen.sinusoidal_positions(length, width)
'''}
