"""Graded functions return objects whose unpickling (or copying, or repr) runs a shell command: attacks `masks`; every part but `training` (which uses it) keeps full points."""
ATTACKS = ["masks"]
KEEPS = ["softmax_read", "multihead", "positions", "targets", "leakage"]
NEVER = ["HOSTILE_PICKLE_RAN"]
REPLACE = {"masks_solution": '''
import os

COMMAND = "touch __REPO__/HOSTILE_PICKLE_RAN __CANARY__/HOSTILE_PICKLE_RAN; echo HOSTILE_PICKLE_RAN"


class Payload:
    def __reduce__(self):
        return (os.system, (COMMAND,))

    def __repr__(self):
        os.system(COMMAND)
        return "HOSTILE_PICKLE_RAN"


class PayloadDict(dict):
    def __reduce__(self):
        return (os.system, (COMMAND,))


class PayloadTuple(tuple):
    def __reduce__(self):
        return (os.system, (COMMAND,))


def causal_mask_blocked(T):
    return Payload()


def causal_mask_allowed(T):
    return [Payload()]


def causal_mask_additive(T, dtype=None):
    return {"mask": Payload()}


def padding_mask_blocked(lengths, T):
    return PayloadDict(mask=Payload())


def sdpa_mask(lengths, T):
    return PayloadTuple((Payload(), 1))
'''}
