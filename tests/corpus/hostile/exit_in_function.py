"""sys.exit(0) and raise SystemExit inside a graded function: attacks `positions`; every other part keeps full points."""
ATTACKS = ["positions"]
KEEPS = ["softmax_read", "masks", "multihead", "targets", "leakage", "training"]
REPLACE = {"positions_solution": '''
import sys


def sinusoidal_positions(length, width):
    if length % 2:
        raise SystemExit("graded")
    sys.exit(0)
'''}
