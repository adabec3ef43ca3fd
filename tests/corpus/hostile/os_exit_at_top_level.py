"""os._exit(0) in a top-level cell right after the imports: attacks the notebook run (the cell is skipped); every part keeps full points."""
ATTACKS = []
KEEPS = ["softmax_read", "masks", "multihead", "positions", "targets", "leakage", "training"]
ADD = [("setup", "import os\nos._exit(0)\n")]
