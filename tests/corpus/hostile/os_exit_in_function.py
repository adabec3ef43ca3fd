"""os._exit(0) inside every graded function of a part: attacks `multihead`; every other part keeps full points."""
ATTACKS = ["multihead"]
KEEPS = ["softmax_read", "masks", "positions", "targets", "leakage", "training"]
REPLACE = {"multihead_solution": '''
import os


def split_heads(x, heads):
    os._exit(0)


def merge_heads(x):
    os._exit(0)


def multi_head_self_attention(x, params, heads, blocked=None):
    os._exit(0)
'''}
