"""Top-level cells that each sleep far past the per-cell limit, graded with a budget shorter than two of them: attacks the submission budget; every part scores 0 and the grade still ends on time with valid results."""
ATTACKS = ["softmax_read", "masks", "multihead", "positions", "targets", "leakage", "training"]
KEEPS = []
EXPECT = ["time budget of", "ran out"]
ADD = [("setup", "import time\ntime.sleep(10**6)\n"),
       ("setup", "import time\ntime.sleep(10**6)\n"),
       ("setup", "import time\ntime.sleep(10**6)\n")]
