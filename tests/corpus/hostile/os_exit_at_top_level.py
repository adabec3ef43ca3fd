"""os._exit(0) in a top-level cell right after the imports: attacks the notebook run (the cell is skipped); every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
ADD = [("setup", "import os\nos._exit(0)\n")]
