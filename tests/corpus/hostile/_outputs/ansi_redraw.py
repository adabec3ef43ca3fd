"""ANSI escapes and carriage returns in an exception's class name and message that try to redraw the table as "total 100 / 100": attacks `masks`; the table, feedback.txt and results.json show the escapes as text."""
ATTACKS = ["masks"]
KEEPS = ["softmax_read", "multihead", "positions", "targets", "leakage"]
EXPECT = ["\\x1b[2K"]
NEVER = ["\x1b", "\\u001b", "\r  total"]
REPLACE = {"masks_solution": '''
REDRAW = "\\x1b[2K\\r  total            100 / 100\\x1b[0m\\n\\x1b[1A\\x1b[2K\\b\\b"
Forged = type("Error" + REDRAW, (Exception,), {})


def causal_mask_blocked(T):
    raise Forged(REDRAW * 3)


def causal_mask_allowed(T):
    raise Forged(REDRAW)


def causal_mask_additive(T, dtype=torch.float32):
    raise Forged(REDRAW)


def padding_mask_blocked(lengths, T):
    raise Forged(REDRAW)


def sdpa_mask(blocked):
    raise Forged(REDRAW)
'''}
