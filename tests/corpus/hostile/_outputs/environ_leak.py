"""A graded function raises an error holding the grader's environment, command line and mount table (os.environ, sys.argv, /proc/self/mountinfo): attacks `leakage`; the grader's LMS_TOKEN and command-line values appear in no output."""
ATTACKS = ["leakage"]
KEEPS = ["softmax_read", "masks", "multihead", "positions", "targets"]
EXPECT = ["LOOT"]
NEVER = ["__MARKER__"]
REPLACE = {"leakage_solution": '''
import os
import sys


def _loot():
    try:
        mounts = open("/proc/self/mountinfo").read()[:300]
    except OSError as err:
        mounts = repr(err)
    # The token first: messages are cut to a few hundred characters on their way out.
    return (f"LOOT token={os.environ.get('LMS_TOKEN')} argv={sys.argv} orig={getattr(sys, 'orig_argv', '')} "
            f"env={dict(os.environ)} mounts={mounts}")


def prefix_change(model, tokens, cut, vocab):
    raise RuntimeError(_loot())


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    raise RuntimeError(_loot())
'''}
