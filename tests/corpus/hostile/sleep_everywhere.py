"""Top-level cells that each sleep far past the per-cell limit, graded with a budget shorter than two of them: attacks the submission budget; every part scores 0 and the grade still ends on time with valid results."""
from autograder.assignment import PART_IDS
ATTACKS = list(PART_IDS)
KEEPS = []
EXPECT = ["time budget of", "ran out"]
ADD = [("setup", "import time\ntime.sleep(10**6)\n"),
       ("setup", "import time\ntime.sleep(10**6)\n"),
       ("setup", "import time\ntime.sleep(10**6)\n")]
