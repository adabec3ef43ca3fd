"""Exceptions whose message holds a lone surrogate ("\ud800"; a class name cannot: type() refuses it), from a graded function and a top-level cell: attacks `positions`; every report must still be written (no UnicodeEncodeError), every other part keeps full points."""
ATTACKS = ["positions"]
KEEPS = ["softmax_read", "masks", "multihead", "targets", "leakage"]
EXPECT = ["\\ud800"]  # shown escaped, as the six characters \ud800
NEVER = ["\ud800"]
REPLACE = {"positions_solution": '''
def sinusoidal_positions(length, width):
    raise ValueError("half a character: \\ud800 and \\udcff end here")
'''}
ADD = [(None, '''
raise RuntimeError("a cell with \\ud800 in its message")
''')]
