"""Graded functions that ignore SIGALRM, SIGTERM, SIGINT and SIGHUP, then loop forever: attacks `multihead`; every other part keeps full points."""
ATTACKS = ["multihead"]
KEEPS = ["softmax_read", "masks", "positions", "targets", "leakage", "training"]
REPLACE = {"multihead_solution": '''
import signal
import time


def stubborn():
    for sig in (signal.SIGALRM, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1):
        signal.signal(sig, signal.SIG_IGN)
    signal.alarm(0)
    while True:
        try:
            time.sleep(0.1)
        except BaseException:
            pass


def split_heads(x, heads):
    stubborn()


def merge_heads(x):
    stubborn()


def multi_head_self_attention(x, params, heads, blocked=None):
    stubborn()
'''}
