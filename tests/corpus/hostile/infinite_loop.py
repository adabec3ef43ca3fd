"""An infinite loop inside a graded function: attacks `positions` (stopped at the per-call limit, then not called again); every other part keeps full points."""
ATTACKS = ["positions"]
KEEPS = ["softmax_read", "masks", "multihead", "targets", "leakage", "training"]
REPLACE = {"positions_solution": '''
def sinusoidal_positions(length, width):
    while True:
        pass
'''}
