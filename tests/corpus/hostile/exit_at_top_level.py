"""sys.exit(0) and raise SystemExit in top-level cells: attacks the notebook run; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
ADD = [("setup", "import sys\nsys.exit(0)\n"),
       (None, "raise SystemExit('the notebook asked to stop')\n")]
