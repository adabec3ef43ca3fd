"""KeyboardInterrupt raised inside graded functions: attacks `leakage`; every part but `training` (which uses it) keeps full points."""
ATTACKS = ["leakage"]
KEEPS = ["softmax_read", "masks", "multihead", "positions", "targets"]
REPLACE = {"leakage_solution": '''
def prefix_change(model, tokens, cut, vocab):
    raise KeyboardInterrupt


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    raise KeyboardInterrupt
'''}
