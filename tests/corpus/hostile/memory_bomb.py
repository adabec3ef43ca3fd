"""Graded functions that allocate until allocation fails (torch tensors, bytes): attacks `leakage`; every part but `training` (which uses it) keeps full points."""
ATTACKS = ["leakage"]
KEEPS = ["softmax_read", "masks", "multihead", "positions", "targets"]
REPLACE = {"leakage_solution": '''
import torch


def prefix_change(model, tokens, cut, vocab):
    hoard = []
    while True:
        hoard.append(torch.ones(2**27))  # 512 MiB each, touched


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    hoard = []
    while True:
        hoard.append(bytearray(2**28))
'''}
