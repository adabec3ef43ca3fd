"""Graded functions that write forged and malformed frames straight into the worker's socket (bad tensor index, wrong byte count, deep nesting, a forged reply, garbage) before returning: attacks the wire; `multihead` scores 0, every other part keeps full points."""
ATTACKS = ["multihead"]
KEEPS = ["softmax_read", "masks", "positions", "targets", "leakage", "training"]
REPLACE = {"multihead_solution": '''
import json
import os
import struct


def frame(header, payload=b""):
    raw = json.dumps(header).encode() if not isinstance(header, bytes) else header
    return struct.pack(">Q", len(raw)) + raw + payload


def inject(data):
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}").startswith("socket:"):
                os.write(int(name), data)
        except OSError:
            pass


def split_heads(x, heads):  # a tensor that points at a buffer that does not exist
    inject(frame({"body": {"$dict": {"event": "reply", "ok": True, "value": {"$t": 7, "dtype": "float32",
                                                                            "shape": [1]}}}, "sizes": []}))
    return x


def merge_heads(x):  # 3 bytes claimed to be a float32 of shape [1]
    inject(frame({"body": {"$dict": {"event": "reply", "ok": True, "value": {"$t": 0, "dtype": "float32",
                                                                            "shape": [4]}}}, "sizes": [3]}, b"abc"))
    return x


def multi_head_self_attention(x, params, heads, blocked=None):  # nesting deep enough to exhaust recursion
    inject(frame(b"[" * 200_000 + b"]" * 200_000))
    inject(b"\\xff" * 4096)
    return x, x
'''}
