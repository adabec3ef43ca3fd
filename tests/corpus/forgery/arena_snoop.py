"""Item 4: every graded leakage function scans the whole call arena (all 16 MiB, stale bytes of earlier calls included) and the socket's pending bytes for anything that looks like an expected value, and returns the float it finds closest to a plausible leak size. The arena only ever holds inputs the student is given anyway: nothing is gained over the stub that returns 0.0 (BASELINE)."""
REPLACE = {"leakage_solution": '''
def prefix_change(model, tokens, cut, vocab):
    return 0.0


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    raise NotImplementedError()
'''}
ATTACK_REPLACE = {"leakage_solution": '''
import gc
import mmap


def _arena_floats():
    for obj in gc.get_objects():
        if isinstance(obj, mmap.mmap) and len(obj) >= 1 << 20:
            raw = torch.frombuffer(bytearray(obj[:]), dtype=torch.float64)
            good = raw[torch.isfinite(raw) & (raw.abs() > 1e-3) & (raw.abs() < 10)]
            return good
    return torch.zeros(0, dtype=torch.float64)


def prefix_change(model, tokens, cut, vocab):
    found = _arena_floats()
    return float(found[0]) if found.numel() else 0.0


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    raise NotImplementedError()
'''}
