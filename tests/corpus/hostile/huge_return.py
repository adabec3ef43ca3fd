"""Graded functions that return 4 GiB (over the memory cap) and 200 MiB (fits memory, over the 64 MiB reply cap) tensors: attacks `masks`; every part but `training` (which uses it) keeps full points."""
ATTACKS = ["masks"]
KEEPS = ["softmax_read", "multihead", "positions", "targets", "leakage"]
REPLACE = {"masks_solution": '''
import torch


def causal_mask_blocked(T):
    return torch.zeros(2**30)  # 4 GiB of float32


def causal_mask_allowed(T):
    return torch.zeros(50 * 2**20)  # 200 MiB of float32


def causal_mask_additive(T, dtype=torch.float32):
    return torch.zeros(2**30, dtype=dtype)


def padding_mask_blocked(lengths, T):
    return [torch.ones(100 * 2**20, dtype=torch.bool), torch.ones(100 * 2**20, dtype=torch.bool)]  # 2 x 100 MiB


def sdpa_mask(lengths, T):
    return torch.ones(2**32, dtype=torch.bool)
'''}
