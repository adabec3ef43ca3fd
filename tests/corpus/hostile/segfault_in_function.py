"""A segmentation fault (ctypes read of address 0) inside graded functions: attacks `targets`; every part but `training` (which uses them) keeps full points."""
ATTACKS = ["targets"]
KEEPS = ["softmax_read", "masks", "multihead", "positions", "leakage"]
REPLACE = {"targets_solution": '''
import ctypes


def shift_for_next_token(tokens):
    return ctypes.string_at(0, 16)


def next_token_loss(logits, targets):
    return ctypes.string_at(0, 16)
'''}
