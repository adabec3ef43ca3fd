"""sys.exit(0) and raise SystemExit in top-level cells: attacks the notebook run; every part keeps full points."""
ATTACKS = []
KEEPS = ["softmax_read", "masks", "multihead", "positions", "targets", "leakage", "training"]
ADD = [("setup", "import sys\nsys.exit(0)\n"),
       (None, "raise SystemExit('the notebook asked to stop')\n")]
