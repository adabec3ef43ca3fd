'''Honest idioms written from the student notebook alone by a helper who had not seen the grader or the other corpus.'''
from tests.corpus.honest import _idioms

PREFIX_CHANGE = _idioms("prefix_change", fresh_clone_try_finally='''
def prefix_change(model, tokens, cut, vocab):
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            changed = tokens.clone()
            changed[:, cut:] = (changed[:, cut:] + 3) % vocab
            before = model(tokens)
            after = model(changed)
    finally:
        model.train(was_training)
    diff = (before[:, :cut] - after[:, :cut]).abs()
    return diff.max().item() if diff.numel() else 0.0
''', fresh_deepcopy_frozen='''
import copy


def prefix_change(model, tokens, cut, vocab):
    # work on a private copy: the caller's model and its modes are never touched
    twin = copy.deepcopy(model)
    twin.eval()
    perturbed = tokens.detach().clone()
    perturbed[:, cut:] += 3
    perturbed[:, cut:] %= vocab
    with torch.no_grad():
        a = twin(tokens)[:, :cut]
        b = twin(perturbed)[:, :cut]
    if a.numel() == 0:
        return 0.0
    return float((a - b).abs().max())
''', fresh_per_module_dict='''
def prefix_change(model, tokens, cut, vocab):
    saved_modes = {module: module.training for module in model.modules()}
    model.eval()
    try:
        shifted = tokens.clone()
        shifted[:, cut:] = torch.remainder(tokens[:, cut:] + 3, vocab)
        with torch.no_grad():
            ref_logits = model(tokens)
            new_logits = model(shifted)
    finally:
        for module, mode in saved_modes.items():
            module.training = mode
    gap = (ref_logits - new_logits)[:, :cut].abs()
    return gap.max().item() if gap.numel() > 0 else 0.0
''', fresh_contextmanager_eval='''
import contextlib


@contextlib.contextmanager
def _contextmanager_eval_mode(net):
    modes = [m.training for m in net.modules()]
    net.eval()
    try:
        yield net
    finally:
        for m, mode in zip(net.modules(), modes):
            setattr(m, "training", mode)


def prefix_change(model, tokens, cut, vocab):
    future = torch.zeros_like(tokens, dtype=torch.bool)
    future[:, cut:] = True
    other = torch.where(future, (tokens + 3) % vocab, tokens)
    with _contextmanager_eval_mode(model), torch.no_grad():
        lhs = model(tokens)
        rhs = model(other)
    delta = (lhs[:, :cut] - rhs[:, :cut]).abs()
    if delta.numel() == 0:
        return 0.0
    return delta.max().item()
''', fresh_decorator_restore='''
import functools


def _decorator_restore_modes(fn):
    @functools.wraps(fn)
    def wrapper(model, *args, **kwargs):
        modes = [(mod, mod.training) for mod in model.modules()]
        try:
            return fn(model, *args, **kwargs)
        finally:
            for mod, flag in modes:
                mod.training = flag
    return wrapper


@_decorator_restore_modes
@torch.no_grad()
def prefix_change(model, tokens, cut, vocab):
    model.eval()
    edited = torch.cat([tokens[:, :cut], (tokens[:, cut:] + 3) % vocab], dim=1)
    out_a = model(tokens)
    out_b = model(edited)
    changes = (out_a[:, :cut] - out_b[:, :cut]).abs().flatten()
    return max(changes.tolist(), default=0.0)
''', fresh_batched_cat='''
def prefix_change(model, tokens, cut, vocab):
    n = tokens.shape[0]
    variant = tokens.clone()
    variant[:, cut:] = variant[:, cut:].add(3).remainder(vocab)
    flags = {name: m.training for name, m in model.named_modules()}
    model.eval()
    try:
        with torch.no_grad():
            both = model(torch.cat([tokens, variant], dim=0))
    finally:
        for name, m in model.named_modules():
            m.training = flags[name]
    original, perturbed = both[:n], both[n:]
    prefix_gap = (original - perturbed)[:, :cut]
    return prefix_gap.abs().max().item() if prefix_gap.numel() else 0.0
''', fresh_inference_mode_where='''
def prefix_change(model, tokens, cut, vocab):
    mode_before = model.training
    positions = torch.arange(tokens.size(1), device=tokens.device)
    rolled = torch.where(positions >= cut, (tokens + 3) % vocab, tokens)
    model.eval()
    try:
        with torch.inference_mode():
            first = model(tokens)
            second = model(rolled)
            diff = (first - second)[:, :cut].abs()
            value = diff.amax().item() if diff.numel() else 0.0
    finally:
        model.train(mode_before)
    return float(value)
''', fresh_numpy_compare='''
import numpy as np


def prefix_change(model, tokens, cut, vocab):
    arr = tokens.detach().cpu().numpy().copy()
    arr[:, cut:] = (arr[:, cut:] + 3) % vocab
    altered = torch.from_numpy(arr).to(tokens.device)
    training_flags = [m.training for m in model.modules()]
    model.eval()
    try:
        with torch.no_grad():
            x = model(tokens).detach().cpu().numpy()
            y = model(altered).detach().cpu().numpy()
    finally:
        for m, flag in zip(model.modules(), training_flags):
            m.training = flag
    d = np.abs(x[:, :cut] - y[:, :cut])
    return float(d.max()) if d.size else 0.0
''', fresh_loop_positions='''
def prefix_change(model, tokens, cut, vocab):
    prior = {m: m.training for m in model.modules()}
    for m in model.modules():
        m.training = False
    try:
        new_tokens = tokens.clone()
        for t in range(cut, tokens.shape[1]):
            new_tokens[:, t] = (tokens[:, t] + 3) % vocab
        with torch.no_grad():
            old_out = model(tokens)
            new_out = model(new_tokens)
    finally:
        for m, flag in prior.items():
            m.training = flag
    worst = 0.0
    for t in range(min(cut, old_out.shape[1])):
        step = (old_out[:, t] - new_out[:, t]).abs().max().item()
        worst = max(worst, step)
    return worst
''', fresh_set_grad_enabled_lookup='''
def prefix_change(model, tokens, cut, vocab):
    # a permutation table: token v becomes (v + 3) mod vocab
    table = (torch.arange(vocab, device=tokens.device) + 3) % vocab
    swapped = tokens.clone()
    swapped[:, cut:] = table[tokens[:, cut:]]
    was = model.training
    model.train(False)
    try:
        with torch.set_grad_enabled(False):
            base = model(tokens)
            moved = model(swapped)
    finally:
        model.train(was)
    if cut <= 0 or base.shape[1] == 0:
        return 0.0
    return (base[:, :cut] - moved[:, :cut]).abs().max().item()
''', fresh_apply_snapshot='''
def prefix_change(model, tokens, cut, vocab):
    snapshot = []
    model.apply(lambda m: snapshot.append((m, m.training)))
    model.apply(lambda m: setattr(m, "training", False))
    try:
        with torch.no_grad():
            reference = model(tokens)
            modified = tokens.clone()
            modified[:, cut:].add_(3).remainder_(vocab)
            probe = model(modified)
    finally:
        for m, flag in snapshot:
            m.training = flag
    span = reference[:, :cut] - probe[:, :cut]
    return 0.0 if span.numel() == 0 else span.abs().max().item()
''', fresh_device_from_params='''
def prefix_change(model, tokens, cut, vocab):
    device = next(model.parameters()).device
    clean = tokens.to(device)
    dirty = clean.clone()
    dirty[:, cut:] = (dirty[:, cut:] + 3) % vocab
    was_training = model.training
    model.eval()
    with torch.no_grad():
        logits_clean = model(clean)
        logits_dirty = model(dirty)
    if was_training:
        model.train()
    head = (logits_clean[:, :cut] - logits_dirty[:, :cut]).abs()
    return head.max().item() if head.numel() else 0.0
''', fresh_vector_norm_inf='''
def prefix_change(model, tokens, cut, vocab):
    x_new = tokens.clone()
    x_new[..., cut:] = torch.fmod(x_new[..., cut:] + 3, vocab)
    states = [module.training for module in model.modules()]
    model.eval()
    try:
        with torch.no_grad():
            stacked = torch.stack([model(tokens), model(x_new)])
    finally:
        for module, state in zip(model.modules(), states):
            module.training = state
    prefix = stacked[:, :, :cut]
    if prefix.numel() == 0:
        return 0.0
    return torch.linalg.vector_norm(prefix[0] - prefix[1], ord=float("inf")).item()
''', fresh_inplace_restore_tokens='''
def prefix_change(model, tokens, cut, vocab):
    keep = model.training
    model.eval()
    tail = tokens[:, cut:].clone()
    try:
        with torch.no_grad():
            original = model(tokens).clone()
            tokens[:, cut:] = (tail + 3) % vocab  # borrow the caller's tensor ...
            changed = model(tokens).clone()
    finally:
        tokens[:, cut:] = tail  # ... and give it back exactly as it was
        model.train(keep)
    d = (original - changed)[:, :cut]
    return d.abs().max().item() if d.numel() else 0.0
''', fresh_class_context_manager='''
class _class_context_manager_Eval:
    def __init__(self, module):
        self.module = module

    def __enter__(self):
        self.flags = [(m, m.training) for m in self.module.modules()]
        self.module.eval()
        return self.module

    def __exit__(self, *exc):
        for m, flag in self.flags:
            m.training = flag
        return False


def prefix_change(model, tokens, cut, vocab):
    T = tokens.size(1)
    future = (torch.arange(T, device=tokens.device) >= cut).long()  # (T,)
    changed = (tokens + 3 * future) % vocab
    changed = torch.where(future.bool(), changed, tokens)
    with _class_context_manager_Eval(model) as net, torch.no_grad():
        y0, y1 = net(tokens), net(changed)
    k = max(0, min(cut, T))
    if k == 0:
        return 0.0
    return (y0[:, :k] - y1[:, :k]).abs().max().item()
''', fresh_double_precision='''
def prefix_change(model, tokens, cut, vocab):
    restore = model.training
    model.eval()
    try:
        with torch.no_grad():
            future_tokens = tokens.clone()
            future_tokens[:, cut:] = (tokens[:, cut:] + 3) % vocab
            p = model(tokens)[:, :cut].double()
            q = model(future_tokens)[:, :cut].double()
    finally:
        model.train(restore)
    return torch.max(torch.abs(p - q)).item() if p.numel() else 0.0
''', fresh_per_sequence_max='''
def prefix_change(model, tokens, cut, vocab):
    modes = {n: m.training for n, m in model.named_modules()}
    model.eval()
    try:
        with torch.no_grad():
            changed = tokens.clone()
            changed[:, cut:] = (changed[:, cut:] + 3) % vocab
            seq_max = []
            for row, row_changed in zip(tokens, changed):
                a = model(row.unsqueeze(0))[0, :cut]
                b = model(row_changed.unsqueeze(0))[0, :cut]
                if a.numel():
                    seq_max.append((a - b).abs().max().item())
    finally:
        for n, m in model.named_modules():
            m.training = modes[n]
    return max(seq_max) if seq_max else 0.0
''')

ASSERT_NO_FUTURE_LEAKAGE = _idioms("assert_no_future_leakage", fresh_plain_assert='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol, f"future leakage: logits before position {cut} changed by {change:.3g} (tol {tol})"
''', fresh_if_raise='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    if change > tol:
        raise AssertionError(f"the model reads the future: prefix logits moved by {change}")
''', fresh_own_deepcopy='''
import copy


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    probe = copy.deepcopy(model).eval()
    edited = tokens.clone()
    edited[:, cut:] = (edited[:, cut:] + 3) % vocab
    with torch.no_grad():
        gap = (probe(tokens)[:, :cut] - probe(edited)[:, :cut]).abs()
    change = gap.max().item() if gap.numel() else 0.0
    if change > tol:
        raise AssertionError(f"leakage detected: max |change| = {change:.3e} > tol = {tol:.1e}")
''', fresh_torch_testing='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    saved = [(m, m.training) for m in model.modules()]
    model.eval()
    try:
        later = tokens.clone()
        later[:, cut:] = (later[:, cut:] + 3) % vocab
        with torch.no_grad():
            expected = model(tokens)[:, :cut]
            actual = model(later)[:, :cut]
    finally:
        for m, flag in saved:
            m.training = flag
    change = (actual - expected).abs().max().item() if actual.numel() else 0.0
    torch.testing.assert_close(
        actual, expected, rtol=0.0, atol=tol,
        msg=lambda default: f"future tokens changed the past by {change:g}\\n{default}",
    )
''', fresh_numpy_testing='''
import numpy as np


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    np.testing.assert_allclose(
        change, 0.0, rtol=0, atol=tol,
        err_msg=f"changing tokens >= {cut} moved earlier logits by {change}",
    )
''', fresh_unittest_case='''
import unittest


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    measured = prefix_change(model, tokens, cut, vocab)
    unittest.TestCase().assertLessEqual(
        measured, tol, f"prefix logits changed by {measured:.6g} when the future changed")
''', fresh_torch_private_assert='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    delta = prefix_change(model, tokens, cut, vocab)
    torch._assert(delta <= tol, "information leaks from the future: change %.4g exceeds %.1g" % (delta, tol))
''', fresh_own_contextmanager='''
import contextlib


@contextlib.contextmanager
def _own_contextmanager_evaluating(net):
    flags = {m: m.training for m in net.modules()}
    try:
        net.eval()
        yield
    finally:
        for m, flag in flags.items():
            m.training = flag


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    other = tokens.clone()
    other[:, cut:] = torch.remainder(other[:, cut:] + 3, vocab)
    with _own_contextmanager_evaluating(model), torch.no_grad():
        diff = model(tokens)[:, :cut] - model(other)[:, :cut]
    worst = diff.abs().max().item() if diff.numel() else 0.0
    if worst > tol:
        raise AssertionError("prefix changed by {:.3e} (tolerance {:.1e})".format(worst, tol))
''', fresh_negated_compare='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    measured_change = prefix_change(model, tokens, cut, vocab)
    if not measured_change <= tol:
        raise AssertionError("Future leakage! max prefix logit change = " + str(measured_change))
''', fresh_own_batched='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    n = len(tokens)
    twin = tokens.clone()
    twin[:, cut:] = (twin[:, cut:] + 3) % vocab
    modes = [m.training for m in model.modules()]
    model.eval()
    try:
        with torch.no_grad():
            out = model(torch.cat([tokens, twin]))
    finally:
        for m, mode in zip(model.modules(), modes):
            m.training = mode
    diff = (out[:n, :cut] - out[n:, :cut]).abs()
    change = diff.max().item() if diff.numel() else 0.0
    assert change <= tol, f"max change {change:.2e} in the first {cut} positions exceeds tol={tol}"
''', fresh_per_row_report='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    was = model.training
    model.eval()
    try:
        changed = tokens.clone()
        changed[:, cut:] = (changed[:, cut:] + 3) % vocab
        with torch.no_grad():
            per_row = (model(tokens) - model(changed))[:, :cut].abs().flatten(1)
    finally:
        model.train(was)
    if per_row.numel() == 0:
        return
    row_max = per_row.max(dim=1).values
    worst_row = int(row_max.argmax())
    change = row_max[worst_row].item()
    if change > tol:
        raise AssertionError(
            f"leakage: prefix logits changed by up to {change:.4g} (sequence {worst_row}), tol {tol:g}")
''', fresh_keyword_call='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model=model, tokens=tokens, cut=cut, vocab=vocab)
    message = "Changing positions >= %d altered positions < %d by %r" % (cut, cut, change)
    assert change <= tol, message
''', fresh_allclose_own='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    mode = model.training
    model.eval()
    with torch.no_grad():
        base = model(tokens)
        alt_tokens = torch.cat([tokens[:, :cut], (tokens[:, cut:] + 3) % vocab], dim=1)
        alt = model(alt_tokens)
    model.train(mode)
    a, b = base[:, :cut], alt[:, :cut]
    if not torch.allclose(a, b, rtol=0.0, atol=tol):
        raise AssertionError(f"future leakage of {(a - b).abs().max().item():.3g}")
''', fresh_decorated_own='''
import functools


def _decorated_own_keeps_modes(fn):
    @functools.wraps(fn)
    def inner(model, *args, **kwargs):
        before = [m.training for m in model.modules()]
        try:
            return fn(model, *args, **kwargs)
        finally:
            for m, flag in zip(model.modules(), before):
                m.training = flag
    return inner


@_decorated_own_keeps_modes
@torch.no_grad()
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    model.eval()
    pos = torch.arange(tokens.shape[-1], device=tokens.device)
    perturbed = torch.where(pos < cut, tokens, (tokens + 3) % vocab)
    gap = (model(tokens) - model(perturbed))[:, :cut].abs()
    change = float(gap.max()) if gap.numel() else 0.0
    if change > tol:
        raise AssertionError(f"{change=} > {tol=}: the model looks at future tokens")
''', fresh_exception_subclass='''
class _exception_subclass_LeakageError(AssertionError):
    """A model let future tokens change its past predictions."""


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    amount = prefix_change(model, tokens, cut, vocab)
    if amount > tol:
        raise _exception_subclass_LeakageError(
            f"prefix logits changed by {amount:.4g} > {tol} when tokens >= {cut} changed")
''', fresh_numpy_own='''
import numpy as np


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    was_training = model.training
    model.eval()
    try:
        future = tokens.clone()
        future[:, cut:] = (future[:, cut:] + 3) % vocab
        with torch.no_grad():
            past_a = model(tokens)[:, :cut].cpu().numpy()
            past_b = model(future)[:, :cut].cpu().numpy()
    finally:
        model.train(was_training)
    change = float(np.max(np.abs(past_a - past_b))) if past_a.size else 0.0
    assert change <= tol, "logits at positions < %d changed by %.3e" % (cut, change)
''', fresh_round_trip_message='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    result = prefix_change(model, tokens, cut, vocab)
    ok = result <= tol
    if ok:
        return None
    raise AssertionError(
        "assert_no_future_leakage failed: prefix_change = {} exceeds tol = {}".format(result, tol))
''')

SHIFT_FOR_NEXT_TOKEN = _idioms("shift_for_next_token", fresh_basic_slices='''
def shift_for_next_token(tokens):
    inputs = tokens[:, :-1]
    targets = tokens[:, 1:]
    return inputs, targets
''', fresh_ellipsis_slices='''
def shift_for_next_token(tokens):
    return tokens[..., :-1], tokens[..., 1:]
''', fresh_narrow='''
def shift_for_next_token(tokens):
    T = tokens.size(1) - 1
    return tokens.narrow(1, 0, T), tokens.narrow(1, 1, T)
''', fresh_cloned_copies='''
def shift_for_next_token(tokens):
    # independent copies, so later edits of one never touch the other
    inputs = tokens[:, :-1].clone()
    targets = tokens[:, 1:].clone()
    return (inputs, targets)
''', fresh_index_select_arange='''
def shift_for_next_token(tokens):
    T = tokens.shape[1] - 1
    idx = torch.arange(T, device=tokens.device)
    return tokens.index_select(1, idx), tokens.index_select(1, idx + 1)
''', fresh_split_sizes='''
def shift_for_next_token(tokens):
    T = tokens.shape[1] - 1
    inputs, _ = tokens.split([T, 1], dim=1)
    _, targets = tokens.split([1, T], dim=1)
    return inputs, targets
''', fresh_tensor_split='''
def shift_for_next_token(tokens):
    length = tokens.size(-1)
    inputs = torch.tensor_split(tokens, [length - 1], dim=1)[0]
    targets = torch.tensor_split(tokens, [1], dim=1)[1]
    return inputs, targets
''', fresh_roll='''
def shift_for_next_token(tokens):
    T = tokens.size(1) - 1
    following = torch.roll(tokens, shifts=-1, dims=1)  # following[:, t] = tokens[:, t + 1]
    return tokens[:, :T], following[:, :T]
''', fresh_gather_index='''
def shift_for_next_token(tokens):
    N, T1 = tokens.shape
    pos = torch.arange(T1 - 1, device=tokens.device).expand(N, T1 - 1)
    return tokens.gather(1, pos), tokens.gather(1, pos + 1)
''', fresh_transpose_rows='''
def shift_for_next_token(tokens):
    by_time = tokens.t()  # (T+1, N)
    return by_time[:-1].t(), by_time[1:].t()
''', fresh_unfold_windows='''
def shift_for_next_token(tokens):
    T = tokens.shape[1] - 1
    if T == 0:
        return tokens[:, :0], tokens[:, :0]
    windows = tokens.unfold(1, T, 1)  # (N, 2, T): window 0 = inputs, window 1 = targets
    return windows[:, 0], windows[:, 1]
''', fresh_numpy_round_trip='''
import numpy as np


def shift_for_next_token(tokens):
    arr = tokens.detach().cpu().numpy()
    x = np.ascontiguousarray(arr[:, :-1])
    y = np.ascontiguousarray(arr[:, 1:])
    return torch.from_numpy(x).to(tokens.device), torch.from_numpy(y).to(tokens.device)
''', fresh_time_loop='''
def shift_for_next_token(tokens):
    N, T_plus_1 = tokens.shape
    T = T_plus_1 - 1
    inputs = tokens.new_empty((N, T))
    targets = tokens.new_empty((N, T))
    for t in range(T):
        inputs[:, t] = tokens[:, t]
        targets[:, t] = tokens[:, t + 1]
    return inputs, targets
''', fresh_boolean_keep='''
def shift_for_next_token(tokens):
    size = tokens.shape[1]
    not_last = torch.ones(size, dtype=torch.bool, device=tokens.device)
    not_last[-1:] = False
    not_first = torch.ones(size, dtype=torch.bool, device=tokens.device)
    not_first[:1] = False
    return tokens[:, not_last], tokens[:, not_first]
''', fresh_python_range_index='''
def shift_for_next_token(tokens):
    n_steps = tokens.shape[-1] - 1
    return tokens[:, list(range(n_steps))], tokens[:, list(range(1, n_steps + 1))]
''', fresh_namedtuple_pair='''
from collections import namedtuple

_namedtuple_pair_Shifted = namedtuple("_namedtuple_pair_Shifted", ["inputs", "targets"])


def shift_for_next_token(tokens):
    return _namedtuple_pair_Shifted(inputs=tokens[:, :-1], targets=tokens[:, 1:])
''', fresh_take_along_dim='''
def shift_for_next_token(tokens):
    steps = torch.arange(tokens.size(1) - 1, device=tokens.device).unsqueeze(0)  # (1, T)
    inputs = torch.take_along_dim(tokens, steps, dim=1)
    targets = torch.take_along_dim(tokens, steps + 1, dim=1)
    return inputs, targets
''', fresh_slice_objects='''
def shift_for_next_token(tokens):
    context, nxt = slice(0, -1), slice(1, None)
    return tokens[:, context].contiguous(), tokens[:, nxt].contiguous()
''')

NEXT_TOKEN_LOSS = _idioms("next_token_loss", fresh_reshape_ce='''
def next_token_loss(logits, targets):
    V = logits.size(-1)
    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1))
''', fresh_flatten_ce='''
def next_token_loss(logits, targets):
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten())
''', fresh_channels_second='''
def next_token_loss(logits, targets):
    # cross_entropy also takes (N, C, d1) logits with (N, d1) targets
    return F.cross_entropy(logits.transpose(1, 2), targets)
''', fresh_module_contiguous_view='''
def next_token_loss(logits, targets):
    criterion = nn.CrossEntropyLoss()
    N, T, V = logits.shape
    return criterion(logits.contiguous().view(N * T, V), targets.contiguous().view(N * T))
''', fresh_log_softmax_gather='''
def next_token_loss(logits, targets):
    log_probs = torch.log_softmax(logits, dim=-1)  # (N, T, V)
    picked = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # (N, T)
    return -picked.mean()
''', fresh_nll_loss='''
def next_token_loss(logits, targets):
    logp = F.log_softmax(logits, dim=-1)
    return F.nll_loss(logp.reshape(-1, logp.shape[-1]), targets.reshape(-1), reduction="mean")
''', fresh_one_hot_sum='''
def next_token_loss(logits, targets):
    onehot = F.one_hot(targets, num_classes=logits.shape[-1]).to(logits.dtype)
    per_position = -(onehot * F.log_softmax(logits, dim=-1)).sum(dim=-1)
    return per_position.mean()
''', fresh_logsumexp_minus_picked='''
def next_token_loss(logits, targets):
    lse = torch.logsumexp(logits, dim=-1)  # (N, T)
    correct = torch.gather(logits, 2, targets[..., None])[..., 0]  # (N, T)
    return (lse - correct).mean()
''', fresh_manual_stable='''
def next_token_loss(logits, targets):
    top = logits.max(dim=-1, keepdim=True).values
    shifted = logits - top
    log_z = shifted.exp().sum(dim=-1).log()  # (N, T)
    target_score = shifted.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    return (log_z - target_score).mean()
''', fresh_sum_over_count='''
def next_token_loss(logits, targets):
    total = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction="sum")
    return total / targets.numel()
''', fresh_none_then_mean='''
def next_token_loss(logits, targets):
    N, T, V = logits.shape
    per_token = F.cross_entropy(logits.reshape(N * T, V), targets.reshape(N * T), reduction="none")
    return per_token.view(N, T).mean(dim=1).mean()
''', fresh_categorical='''
from torch.distributions import Categorical


def next_token_loss(logits, targets):
    return -Categorical(logits=logits).log_prob(targets).mean()
''', fresh_einsum_one_hot='''
def next_token_loss(logits, targets):
    log_p = logits.log_softmax(-1)
    mask = F.one_hot(targets, log_p.size(-1)).type_as(log_p)
    return -torch.einsum("ntv,ntv->", log_p, mask) / targets.numel()
''', fresh_nll_module_pair='''
def next_token_loss(logits, targets):
    to_log_probs = nn.LogSoftmax(dim=1)
    nll = nn.NLLLoss()
    flat = logits.reshape(-1, logits.size(-1))
    return nll(to_log_probs(flat), targets.flatten())
''', fresh_take_along_dim='''
def next_token_loss(logits, targets):
    lp = logits.log_softmax(dim=-1)
    return lp.take_along_dim(targets.unsqueeze(-1), dim=-1).neg().mean()
''', fresh_advanced_indexing='''
def next_token_loss(logits, targets):
    N, T, V = logits.shape
    log_probs = F.log_softmax(logits, dim=2)
    rows = torch.arange(N, device=logits.device)[:, None]
    cols = torch.arange(T, device=logits.device)[None, :]
    return -log_probs[rows, cols, targets].mean()
''', fresh_probability_targets='''
def next_token_loss(logits, targets):
    V = logits.shape[-1]
    soft = F.one_hot(targets.reshape(-1), V).to(dtype=logits.dtype)  # class probabilities
    return F.cross_entropy(logits.reshape(-1, V), soft)
''', fresh_kl_div_one_hot='''
def next_token_loss(logits, targets):
    log_q = F.log_softmax(logits, dim=-1)
    p = F.one_hot(targets, logits.size(-1)).to(log_q.dtype)
    # KL(one-hot || q) = -log q[target], since the entropy of a one-hot is 0
    return F.kl_div(log_q, p, reduction="sum") / targets.numel()
''')

ALL = {"prefix_change": PREFIX_CHANGE, "assert_no_future_leakage": ASSERT_NO_FUTURE_LEAKAGE,
       "shift_for_next_token": SHIFT_FOR_NEXT_TOKEN, "next_token_loss": NEXT_TOKEN_LOSS}
