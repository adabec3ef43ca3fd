'''Honest idioms: correct ways students write the functions that get a model, a loss or a shift.

Each idiom is one function, right in plain PyTorch (tests/test_honest.py checks it there first,
against the reference on real lab models and tensors), and must get full marks through every
flow. They are the idioms a grader that stood in for the model once took points from:
``next(model.parameters()).device``, ``copy.deepcopy(model).eval()``, ``module.training = was``
on each submodule, ``model.apply(...)``. The helper-written set from the notebook alone is
honest_fresh.py; the same tests run both.

An idiom may call the notebook's other functions (an assert_no_future_leakage built on
prefix_change); notebook k of the corpus holds idiom k of each function (tests/test_honest.py).
'''
from dataclasses import dataclass


@dataclass(frozen=True)
class Idiom:
    function: str  # the graded function it defines
    name: str  # unique within the function
    source: str  # the function's definition, with the imports it needs


def _idioms(function, **sources):
    return [Idiom(function, name, source.strip("\n") + "\n") for name, source in sources.items()]


PREFIX_CHANGE = _idioms("prefix_change", deepcopy_eval='''
import copy


def prefix_change(model, tokens, cut, vocab):
    frozen = copy.deepcopy(model).eval()  # the caller's model is never touched
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 3) % vocab
    with torch.no_grad():
        return (frozen(tokens)[:, :cut] - frozen(changed)[:, :cut]).abs().max().item()
''', device_from_parameters='''
def prefix_change(model, tokens, cut, vocab):
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    try:
        tokens = tokens.to(device)
        changed = tokens.clone()
        changed[:, cut:] = (changed[:, cut:] + 3) % vocab
        with torch.no_grad():
            diff = model(tokens)[:, :cut] - model(changed)[:, :cut]
        return diff.abs().max().item()
    finally:
        model.train(was_training)
''', flags_per_submodule='''
def prefix_change(model, tokens, cut, vocab):
    saved = {module: module.training for module in model.modules()}
    model.eval()
    try:
        changed = tokens.clone()
        changed[:, cut:] = (changed[:, cut:] + 3) % vocab
        with torch.no_grad():
            return (model(tokens)[:, :cut] - model(changed)[:, :cut]).abs().max().item()
    finally:
        for module, was in saved.items():
            module.training = was
''', apply_setattr='''
def prefix_change(model, tokens, cut, vocab):
    was = model.training
    model.apply(lambda m: setattr(m, "training", False))  # dropout off everywhere
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 3) % vocab
    with torch.no_grad():
        change = (model(tokens)[:, :cut] - model(changed)[:, :cut]).abs().max().item()
    model.train(was)
    return change
''', inference_mode_decorator='''
@torch.inference_mode()
def prefix_change(model, tokens, cut, vocab):
    mode = model.training
    model.train(False)
    changed = torch.cat([tokens[:, :cut], (tokens[:, cut:] + 3) % vocab], dim=1)
    before, after = model(tokens), model(changed)
    model.train(mode)
    return float((before[:, :cut] - after[:, :cut]).abs().max())
''', no_grad_decorator_forward='''
@torch.no_grad()
def prefix_change(model, tokens, cut, vocab):
    training = model.training
    model.eval()
    changed = tokens.detach().clone()
    changed[..., cut:] = torch.remainder(changed[..., cut:] + 3, vocab)
    original = model.forward(tokens)
    perturbed = model.forward(changed)
    if training:
        model.train()
    return torch.max(torch.abs(original[:, :cut] - perturbed[:, :cut])).item()
''', context_manager='''
import contextlib


@contextlib.contextmanager
def evaluating(model):
    """Eval mode inside the block, the caller's mode after it, whatever happens."""
    was_training = model.training
    try:
        yield model.eval()
    finally:
        model.train(was_training)


def prefix_change(model, tokens, cut, vocab):
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 3) % vocab
    with evaluating(model), torch.no_grad():
        return (model(tokens) - model(changed))[:, :cut].abs().max().item()
''', one_batched_pass='''
def prefix_change(model, tokens, cut, vocab):
    was_training = model.training
    model.eval()
    try:
        changed = tokens.clone()
        changed[:, cut:] = (changed[:, cut:] + 3) % vocab
        with torch.no_grad():
            both = model(torch.cat([tokens, changed], dim=0))  # (2N, T, V): one forward pass
        before, after = both.chunk(2, dim=0)
        return (before[:, :cut] - after[:, :cut]).abs().max().item()
    finally:
        model.train(was_training)
''', where_mask='''
def prefix_change(model, tokens, cut, vocab):
    future = torch.arange(tokens.size(1), device=tokens.device) >= cut  # (T,)
    changed = torch.where(future, (tokens + 3) % vocab, tokens)  # a new tensor
    was_training = model.training
    model.eval()
    with torch.no_grad():
        gap = (model(tokens) - model(changed))[:, :cut]
    model.train(was_training)
    return gap.abs().max().item()
''', functional_call='''
from torch.func import functional_call


def prefix_change(model, tokens, cut, vocab):
    weights = {**dict(model.named_parameters()), **dict(model.named_buffers())}
    was_training = model.training
    model.eval()
    try:
        changed = tokens.clone()
        changed[:, cut:] = (changed[:, cut:] + 3) % vocab
        with torch.no_grad():
            before = functional_call(model, weights, (tokens,))
            after = functional_call(model, weights, (changed,))
        return (before[:, :cut] - after[:, :cut]).abs().max().item()
    finally:
        model.train(was_training)
''', eval_each_submodule='''
def prefix_change(model, tokens, cut, vocab):
    modes = [m.training for m in model.modules()]
    for m in model.modules():
        m.eval()
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 3) % vocab
    with torch.no_grad():
        worst = (model(tokens)[:, :cut] - model(changed)[:, :cut]).abs().max().item()
    for m, mode in zip(model.modules(), modes):
        m.train(mode)
    return worst
''', float64_difference='''
def prefix_change(model, tokens, cut, vocab):
    was_training = model.training
    model.eval()
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 3) % vocab
    with torch.no_grad():
        before = model(tokens)[:, :cut].double()
        after = model(changed)[:, :cut].double()
    model.train(was_training)
    return float(torch.linalg.vector_norm(before - after, ord=float("inf")))
''', requires_grad_off='''
def prefix_change(model, tokens, cut, vocab):
    needs_grad = {name: p.requires_grad for name, p in model.named_parameters()}
    was_training = model.training
    model.requires_grad_(False).eval()
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 3) % vocab
    delta = model(tokens)[:, :cut] - model(changed)[:, :cut]
    model.train(was_training)
    for name, p in model.named_parameters():
        p.requires_grad_(needs_grad[name])
    return delta.abs().max().item()
''', numpy_compare='''
import numpy as np


def prefix_change(model, tokens, cut, vocab):
    was_training = model.training
    model.eval()
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 3) % vocab
    with torch.no_grad():
        before = model(tokens).detach().cpu().numpy()
        after = model(changed).detach().cpu().numpy()
    model.train(was_training)
    return float(np.abs(before[:, :cut] - after[:, :cut]).max())
''', state_dict_clone='''
import copy


def prefix_change(model, tokens, cut, vocab):
    twin = copy.deepcopy(model)
    twin.load_state_dict(model.state_dict())  # same weights, its own mode
    twin.eval()
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 3) % vocab
    with torch.no_grad():
        logits = [twin(x)[:, :cut] for x in (tokens, changed)]
    return (logits[0] - logits[1]).abs().amax().item()
''', model_to_device='''
def prefix_change(model, tokens, cut, vocab):
    device = tokens.device
    model = model.to(device)
    state = model.training
    model.eval()
    with torch.no_grad():
        base = model(tokens)
        changed = tokens.clone()
        changed[:, cut:] = changed[:, cut:].add(3).fmod(vocab)
        moved = model(changed)
    model.train(state)
    return (base - moved)[:, :cut].abs().max().item()
''', per_sequence_loop='''
def prefix_change(model, tokens, cut, vocab):
    was_training = model.training
    model.eval()
    largest = 0.0
    try:
        with torch.no_grad():
            for row in tokens:  # one sequence at a time, (1, T) each
                seq = row.unsqueeze(0)
                changed = seq.clone()
                changed[:, cut:] = (changed[:, cut:] + 3) % vocab
                gap = (model(seq)[:, :cut] - model(changed)[:, :cut]).abs().max().item()
                largest = max(largest, gap)
    finally:
        model.train(was_training)
    return largest
''')


ASSERT_NO_FUTURE_LEAKAGE = _idioms("assert_no_future_leakage", raise_if='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    if change > tol:
        raise AssertionError(f"logits before position {cut} moved by {change:.3e} (tol {tol})")
''', assert_close='''
import copy


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    frozen = copy.deepcopy(model).eval()
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 3) % vocab
    with torch.no_grad():
        before, after = frozen(tokens)[:, :cut], frozen(changed)[:, :cut]
    torch.testing.assert_close(after, before, atol=tol, rtol=0)  # raises AssertionError with the numbers
''', numpy_assert_allclose='''
import numpy as np


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    was_training = model.training
    model.eval()
    try:
        changed = tokens.clone()
        changed[:, cut:] = (changed[:, cut:] + 3) % vocab
        with torch.no_grad():
            before = model(tokens)[:, :cut].numpy()
            after = model(changed)[:, :cut].numpy()
    finally:
        model.train(was_training)
    np.testing.assert_allclose(after, before, rtol=0, atol=tol, err_msg="future tokens leak into the past")
''', unittest_assertion='''
import unittest

_case = unittest.TestCase()


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    _case.assertLessEqual(prefix_change(model, tokens, cut, vocab), tol, "the prefix depends on the future")
''', subclass_of_assertion_error='''
class FutureLeakError(AssertionError):
    """A model whose past logits depend on future tokens."""


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    if change > tol:
        raise FutureLeakError(f"change {change:g} exceeds tol {tol:g}")
''', allclose_assert='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    was = model.training
    model.eval()
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 3) % vocab
    with torch.no_grad():
        a, b = model(tokens)[:, :cut], model(changed)[:, :cut]
    model.train(was)
    assert torch.allclose(a, b, rtol=0, atol=tol), f"max prefix change {(a - b).abs().max().item():.4g} > {tol}"
''', percent_format='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    if not change <= tol:
        raise AssertionError("future-token leakage: %.6f > %g" % (change, tol))
''', bare_number='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    if change > tol:
        raise AssertionError(change)
''', debug_fstring='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol, f"leak: {change=}, {tol=}"
''', float64_comparison='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = torch.tensor(prefix_change(model, tokens, cut, vocab), dtype=torch.float64)
    assert bool(change <= tol), f"prefix logits moved by {change.item():.3g}"
''', returns_true='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol, "prefix changed by " + str(round(change, 6))
    return True
''', assert_close_message='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    was_training = model.training
    model.eval()
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 3) % vocab
    try:
        with torch.no_grad():
            torch.testing.assert_close(model(changed)[:, :cut], model(tokens)[:, :cut], rtol=0.0, atol=tol,
                                       msg=lambda m: f"future-token leakage at cut={cut}: {m}")
    finally:
        model.train(was_training)
''', assert_not_greater='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    assert not (measured := prefix_change(model, tokens, cut, vocab)) > tol, (
        f"Changing tokens {cut}.. changed earlier logits by {measured}")
''', keyword_arguments='''
def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model=model, tokens=tokens, cut=cut, vocab=vocab)
    message = "no leakage" if change <= tol else f"leakage of {change:.2e}"
    assert change <= tol, message
''', math_isclose='''
import math as _math


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol or _math.isclose(change, tol), f"{change} > {tol}"
''', warnings_then_raise='''
import warnings


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    if change > tol:
        warnings.warn("causality check failed")
        raise AssertionError(f"prefix change {change:.5f} above tolerance {tol}")
''')


SHIFT_FOR_NEXT_TOKEN = _idioms("shift_for_next_token", ellipsis_slices='''
def shift_for_next_token(tokens):
    return tokens[..., :-1], tokens[..., 1:]
''', narrow='''
def shift_for_next_token(tokens):
    T = tokens.size(1) - 1
    return tokens.narrow(1, 0, T), tokens.narrow(1, 1, T)
''', unbind_stack='''
def shift_for_next_token(tokens):
    columns = tokens.unbind(dim=1)  # T+1 tensors of shape (N,)
    return torch.stack(columns[:-1], dim=1), torch.stack(columns[1:], dim=1)
''', split_sizes='''
def shift_for_next_token(tokens):
    T = tokens.shape[1] - 1
    inputs, _ = tokens.split([T, 1], dim=1)
    _, targets = tokens.split([1, T], dim=1)
    return inputs, targets
''', index_select='''
def shift_for_next_token(tokens):
    T = tokens.shape[1] - 1
    positions = torch.arange(T, device=tokens.device)
    return tokens.index_select(1, positions), tokens.index_select(1, positions + 1)
''', roll='''
def shift_for_next_token(tokens):
    following = torch.roll(tokens, shifts=-1, dims=1)  # position t now holds token t + 1
    return tokens[:, :-1], following[:, :-1]
''', contiguous_copies='''
def shift_for_next_token(tokens):
    inputs = tokens[:, :-1].contiguous()
    targets = tokens[:, 1:].contiguous()
    return inputs, targets
''', clone_then_slice='''
def shift_for_next_token(tokens):
    copy = tokens.clone()
    return copy[:, :-1], copy[:, 1:]
''', gather='''
def shift_for_next_token(tokens):
    N, T1 = tokens.shape
    index = torch.arange(T1 - 1).expand(N, T1 - 1)  # (N, T)
    return tokens.gather(1, index), tokens.gather(1, index + 1)
''', unfold_windows='''
def shift_for_next_token(tokens):
    pairs = tokens.unfold(1, 2, 1)  # (N, T, 2): each token with the one that follows it
    return pairs[..., 0], pairs[..., 1]
''', transposed_rows='''
def shift_for_next_token(tokens):
    by_position = tokens.t()  # (T+1, N)
    return by_position[:-1].t(), by_position[1:].t()
''', tensor_split='''
def shift_for_next_token(tokens):
    inputs = torch.tensor_split(tokens, [tokens.shape[1] - 1], dim=1)[0]
    targets = torch.tensor_split(tokens, [1], dim=1)[1]
    return inputs, targets
''', advanced_indexing='''
def shift_for_next_token(tokens):
    steps = torch.arange(tokens.shape[-1] - 1)
    return tokens[:, steps], tokens[:, steps + 1]
''', returns_list='''
def shift_for_next_token(tokens):
    return [tokens[:, :-1], tokens[:, 1:]]
''', numpy_slices='''
import numpy as np


def shift_for_next_token(tokens):
    array = tokens.numpy()
    return torch.from_numpy(np.ascontiguousarray(array[:, :-1])), torch.from_numpy(np.ascontiguousarray(array[:, 1:]))
''', slice_objects='''
def shift_for_next_token(tokens):
    head, tail = slice(None, -1), slice(1, None)
    return tuple(tokens[:, part] for part in (head, tail))
''', movedim='''
def shift_for_next_token(tokens):
    time_first = tokens.movedim(1, 0)  # (T+1, N)
    return time_first[:-1].movedim(0, 1), time_first[1:].movedim(0, 1)
''')


NEXT_TOKEN_LOSS = _idioms("next_token_loss", class_dim_transpose='''
def next_token_loss(logits, targets):
    return F.cross_entropy(logits.transpose(1, 2), targets)  # (N, V, T): classes in dim 1
''', flatten='''
def next_token_loss(logits, targets):
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten())
''', module_with_view='''
criterion = nn.CrossEntropyLoss()


def next_token_loss(logits, targets):
    N, T, V = logits.shape
    return criterion(logits.view(N * T, V), targets.view(N * T))
''', log_softmax_gather='''
def next_token_loss(logits, targets):
    log_probs = torch.log_softmax(logits, dim=-1)
    return -log_probs.gather(-1, targets.unsqueeze(-1)).mean()
''', nll_loss='''
def next_token_loss(logits, targets):
    V = logits.shape[-1]
    return F.nll_loss(F.log_softmax(logits, dim=-1).reshape(-1, V), targets.reshape(-1))
''', logsumexp='''
def next_token_loss(logits, targets):
    picked = logits.gather(-1, targets[..., None]).squeeze(-1)  # (N, T)
    return (torch.logsumexp(logits, dim=-1) - picked).mean()
''', one_hot='''
def next_token_loss(logits, targets):
    one_hot = F.one_hot(targets, num_classes=logits.size(-1)).to(logits.dtype)  # (N, T, V)
    return -(one_hot * F.log_softmax(logits, dim=-1)).sum(dim=-1).mean()
''', sum_over_count='''
def next_token_loss(logits, targets):
    V = logits.size(-1)
    total = F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), reduction="sum")
    return total / targets.numel()
''', reduction_none_mean='''
def next_token_loss(logits, targets):
    per_position = F.cross_entropy(logits.permute(0, 2, 1), targets, reduction="none")  # (N, T)
    return per_position.mean()
''', per_sequence_mean='''
def next_token_loss(logits, targets):
    losses = [F.cross_entropy(logits[i], targets[i]) for i in range(logits.shape[0])]  # each (T, V) vs (T,)
    return torch.stack(losses).mean()
''', manual_stable='''
def next_token_loss(logits, targets):
    shifted = logits - logits.max(dim=-1, keepdim=True).values
    log_probs = shifted - shifted.exp().sum(dim=-1, keepdim=True).log()
    return -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1).mean()
''', advanced_indexing='''
def next_token_loss(logits, targets):
    N, T, _ = logits.shape
    log_probs = logits.log_softmax(dim=-1)
    return -log_probs[torch.arange(N)[:, None], torch.arange(T)[None, :], targets].mean()
''', float64_inside='''
def next_token_loss(logits, targets):
    V = logits.shape[-1]
    loss = F.cross_entropy(logits.double().reshape(-1, V), targets.reshape(-1))
    return loss.to(logits.dtype)
''', kl_divergence='''
def next_token_loss(logits, targets):
    V = logits.shape[-1]
    log_probs = F.log_softmax(logits.reshape(-1, V), dim=-1)
    target_dist = F.one_hot(targets.reshape(-1), V).to(logits.dtype)
    return F.kl_div(log_probs, target_dist, reduction="batchmean")  # = cross-entropy for one-hot targets
''', long_targets_einsum='''
def next_token_loss(logits, targets):
    targets = targets.long()
    V = logits.size(-1)
    chosen = torch.einsum("ntv,ntv->nt", F.log_softmax(logits, -1), F.one_hot(targets, V).to(logits.dtype))
    return -chosen.mean()
''', nn_functional_module='''
import torch.nn.functional as nnf


def next_token_loss(logits, targets):
    return nnf.cross_entropy(input=logits.contiguous().view(-1, logits.size(-1)), target=targets.contiguous().view(-1),
                             reduction="mean")
''')

ALL = {"prefix_change": PREFIX_CHANGE, "assert_no_future_leakage": ASSERT_NO_FUTURE_LEAKAGE,
       "shift_for_next_token": SHIFT_FOR_NEXT_TOKEN, "next_token_loss": NEXT_TOKEN_LOSS}


def corpus():
    """{function: [Idiom]}: this file's idioms, then those a helper wrote from the student notebook alone."""
    merged = {function: list(found) for function, found in ALL.items()}
    try:
        from tests.corpus import honest_fresh
    except ImportError:
        return merged
    for function, found in honest_fresh.ALL.items():
        merged[function] += found
    return merged
