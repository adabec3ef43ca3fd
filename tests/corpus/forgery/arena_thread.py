"""Item 4 (a race the grader cannot win, and need not): the mutating prefix_change starts a thread that keeps the call arena (found among the process's mmaps) as it was at the call's start -- restoring its tokens right after the function returns and scribbling over everything else the grader places later. Whatever the grader reads after a reply is its own observation of the caller's memory; a function
whose input is back as it was when the caller looks (restored by the function itself, a wrapper, or
a thread) is, to the caller, one that left it unchanged. So the bound is the same mutating function
with its tokens restored by a plain wrapper (EQUIVALENT); the scribbling afterwards only hurts."""
from ._sources import MUTATING_LEAKAGE

REPLACE = {"leakage_solution": MUTATING_LEAKAGE}
ADD = [("leakage_solution", '''
import gc
import mmap
import threading
import time

_real_prefix_change = prefix_change


def _arena():
    for obj in gc.get_objects():
        if isinstance(obj, mmap.mmap) and len(obj) >= 1 << 20:
            return obj
    return None


def _keep(arena, saved, until):
    while time.monotonic() < until:  # put the tokens back, over and over, after the function returned
        try:
            arena[:len(saved)] = saved
        except Exception:
            return
        time.sleep(0.0005)
    for offset in range(0, 1 << 16, 4096):  # then scribble over what the grader places next
        try:
            arena[offset:offset + 8] = b"\\xff" * 8
        except Exception:
            return


def prefix_change(model, tokens, cut, vocab):
    arena = _arena()
    if arena is not None:
        saved = bytes(arena[:4096])
        threading.Thread(target=_keep, args=(arena, saved, time.monotonic() + 0.2), daemon=True).start()
    return _real_prefix_change(model, tokens, cut, vocab)
''')]
EQUIVALENT = {"leakage_solution": MUTATING_LEAKAGE + '''

def _restore_tokens(fn):
    def wrapper(model, tokens, *args, **kwargs):
        saved = tokens.clone()
        try:
            return fn(model, tokens, *args, **kwargs)
        finally:
            tokens.copy_(saved)
    return wrapper


prefix_change = _restore_tokens(prefix_change)
'''}
