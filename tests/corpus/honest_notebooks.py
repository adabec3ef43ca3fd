"""Three whole honest submissions, written from the student notebook alone before the grader was read.

Each is one student's complete notebook in a style of its own: every solution cell, the three written
answers and the Q1 ablation as an extra cell inside `if not GRADING:`, the way a student hands it in.
They were first checked against PyTorch itself (tests/test_honest_notebooks.py repeats the check), then
graded by the real command; each must score 100 / 100.
"""
import copy

import nbformat

from autograder.assignment import PART_IDS, STUDENT_NOTEBOOK
from tests.corpus import Alternative, apply_alternative

# ---- style (a): einsum, float64 softmax ---------------------------------------------------------
SOFTMAX_READ_A = '''
def stable_softmax(scores, dim=-1):
    """Softmax of ``scores`` along ``dim``, safe for huge scores and fully blocked rows."""
    # Work in float64 so the shift and the sum lose nothing, then go back to the caller's dtype.
    s = scores.to(torch.float64)
    peak = s.amax(dim=dim, keepdim=True)
    # A row of all -inf has peak -inf; shifting by it would give -inf - -inf = nan, so shift by 0.
    peak = torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak))
    e = torch.exp(s - peak)                      # -inf entries become exactly 0
    total = e.sum(dim=dim, keepdim=True)
    safe_total = torch.where(total > 0, total, torch.ones_like(total))
    probs = torch.where(total > 0, e / safe_total, torch.zeros_like(e))
    return probs.to(scores.dtype)


def attention_read(q, k, v, blocked=None, temperature=1.0):
    """One scaled dot-product attention read (see the docstring above)."""
    dk = q.shape[-1]
    scores = torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(dk) / temperature
    if blocked is not None:
        scores = scores.masked_fill(blocked, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    output = torch.einsum("...qk,...kv->...qv", weights, v)
    return output, weights
'''

MASKS_A = '''
def causal_mask_blocked(T):
    return torch.ones(T, T, dtype=torch.bool).triu(diagonal=1)


def causal_mask_allowed(T):
    return ~causal_mask_blocked(T)


def causal_mask_additive(T, dtype=torch.float32):
    return torch.zeros(T, T, dtype=dtype).masked_fill(causal_mask_blocked(T), float("-inf"))


def padding_mask_blocked(lengths, T):
    positions = torch.arange(T, device=lengths.device)
    return positions[None, :] >= lengths[:, None]


def sdpa_mask(lengths, T):
    allowed = causal_mask_allowed(T).to(lengths.device)[None, None, :, :]      # (1, 1, T, T)
    real_keys = ~padding_mask_blocked(lengths, T)[:, None, None, :]            # (N, 1, 1, T)
    return allowed & real_keys
'''

MULTIHEAD_A = '''
def split_heads(x, heads):
    N, T, D = x.shape
    return x.reshape(N, T, heads, D // heads).transpose(1, 2)


def merge_heads(x):
    N, H, T, Dh = x.shape
    return x.transpose(1, 2).reshape(N, T, H * Dh)


def multi_head_self_attention(x, params, heads, blocked=None):
    H = heads
    qkv = torch.einsum("ntd,ed->nte", x, params["in_proj_weight"]) + params["in_proj_bias"]  # (N, T, 3D)
    q, k, v = qkv.chunk(3, dim=-1)
    out, weights = attention_read(split_heads(q, H), split_heads(k, H), split_heads(v, H), blocked)
    merged = merge_heads(out)
    output = torch.einsum("nte,de->ntd", merged, params["out_proj.weight"]) + params["out_proj.bias"]
    return output, weights
'''

POSITIONS_A = '''
def sinusoidal_positions(length, width):
    pos = torch.arange(length, dtype=torch.float64)
    two_i = torch.arange(0, width, 2, dtype=torch.float64)
    inv_freq = 10000.0 ** (-two_i / width)
    angles = torch.einsum("p,f->pf", pos, inv_freq)     # (length, width / 2)
    pe = torch.empty(length, width, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe.to(torch.float32)
'''

TARGETS_A = '''
def shift_for_next_token(tokens):
    return tokens[:, :-1], tokens[:, 1:]


def next_token_loss(logits, targets):
    log_probs = torch.log_softmax(logits, dim=-1)                       # (N, T, V)
    picked = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)    # (N, T)
    return -picked.mean()
'''

LEAKAGE_A = '''
def prefix_change(model, tokens, cut, vocab):
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            changed = tokens.clone()
            changed[:, cut:] = (changed[:, cut:] + 3) % vocab
            before = model(tokens)
            after = model(changed)
            if cut <= 0:
                return 0.0  # no prefix to compare
            return torch.einsum("ntv->ntv", before[:, :cut] - after[:, :cut]).abs().max().item()
    finally:
        model.train(was_training)


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol, f"future tokens changed the logits before position {cut} by {change:.3g} (tol {tol})"
'''


# ---- style (b): matmul, finfo minima, view ------------------------------------------------------
SOFTMAX_READ_B = '''
def stable_softmax(scores, dim=-1):
    neg_inf = scores == float("-inf")
    dead = neg_inf.all(dim=dim, keepdim=True)
    # Replace -inf by the most negative finite number so the max and the shift stay finite.
    finite = scores.masked_fill(neg_inf, torch.finfo(scores.dtype).min)
    shifted = finite - finite.max(dim=dim, keepdim=True).values
    e = shifted.exp().masked_fill(neg_inf, 0.0)
    probs = e / e.sum(dim=dim, keepdim=True)
    return probs.masked_fill(dead, 0.0)


def attention_read(q, k, v, blocked=None, temperature=1.0):
    dk = q.size(-1)
    scores = q @ k.transpose(-2, -1) / (dk ** 0.5 * temperature)
    if blocked is not None:
        blocked = blocked.bool()
        # finfo.min instead of -inf: exp underflows to exactly 0 for partly blocked rows.
        scores = scores.masked_fill(blocked, torch.finfo(scores.dtype).min)
    weights = stable_softmax(scores, dim=-1)
    if blocked is not None:
        # A fully blocked row came out uniform over finfo.min scores: it must be all zeros.
        weights = weights.masked_fill(blocked.all(dim=-1, keepdim=True), 0.0)
    return weights @ v, weights
'''

MASKS_B = '''
def causal_mask_blocked(T):
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)


def causal_mask_allowed(T):
    return torch.tril(torch.ones(T, T, dtype=torch.bool))


def causal_mask_additive(T, dtype=torch.float32):
    return torch.triu(torch.full((T, T), float("-inf"), dtype=dtype), diagonal=1)


def padding_mask_blocked(lengths, T):
    N = lengths.size(0)
    return torch.arange(T).expand(N, T) >= lengths.view(N, 1)


def sdpa_mask(lengths, T):
    N = lengths.size(0)
    causal = causal_mask_allowed(T).view(1, 1, T, T)
    keys = (~padding_mask_blocked(lengths, T)).view(N, 1, 1, T)
    return causal & keys
'''

MULTIHEAD_B = '''
def split_heads(x, heads):
    N, T, D = x.size()
    return x.contiguous().view(N, T, heads, D // heads).transpose(1, 2)


def merge_heads(x):
    N, H, T, Dh = x.size()
    return x.transpose(1, 2).contiguous().view(N, T, H * Dh)


def multi_head_self_attention(x, params, heads, blocked=None):
    D = x.size(-1)
    proj = F.linear(x, params["in_proj_weight"], params["in_proj_bias"])     # (N, T, 3D)
    q, k, v = proj.split(D, dim=-1)
    out, weights = attention_read(split_heads(q, heads), split_heads(k, heads), split_heads(v, heads), blocked)
    out = F.linear(merge_heads(out), params["out_proj.weight"], params["out_proj.bias"])
    return out, weights
'''

POSITIONS_B = '''
def sinusoidal_positions(length, width):
    # The classic formulation: 1 / 10000^(2i/d) written as exp(-2i * ln(10000) / d).
    position = torch.arange(length, dtype=torch.float32).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, width, 2, dtype=torch.float32) * (-math.log(10000.0) / width))
    pe = torch.zeros(length, width)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe
'''

TARGETS_B = '''
def shift_for_next_token(tokens):
    inputs = tokens[:, :-1]
    targets = tokens[:, 1:]
    return inputs, targets


def next_token_loss(logits, targets):
    # cross_entropy takes (N, C, T) logits with (N, T) targets directly.
    return F.cross_entropy(logits.transpose(1, 2), targets)
'''

LEAKAGE_B = '''
def prefix_change(model, tokens, cut, vocab):
    mode = model.training
    model.eval()
    try:
        with torch.no_grad():
            changed = torch.cat([tokens[:, :cut], (tokens[:, cut:] + 3) % vocab], dim=1)
            diff = (model(tokens) - model(changed))[:, :cut]
    finally:
        model.train(mode)
    return diff.abs().max().item() if diff.numel() > 0 else 0.0


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    if change > tol:
        raise AssertionError(f"future leakage: logits at positions < {cut} changed by {change:.2e} > {tol:.0e}")
'''


# ---- style (c): functional, a loop over heads --------------------------------------------------
SOFTMAX_READ_C = '''
def stable_softmax(scores, dim=-1):
    # The maximum is a constant shift (softmax ignores it), so it need not carry gradient.
    top = scores.detach().amax(dim=dim, keepdim=True)
    top = top.masked_fill(torch.isneginf(top), 0.0)
    weights = F.softmax(scores - top, dim=dim)
    # Only an all -inf slice gives 0/0 here; its weights are defined as zeros.
    return torch.nan_to_num(weights, nan=0.0)


def attention_read(q, k, v, blocked=None, temperature=1.0):
    scale = 1.0 / (math.sqrt(q.shape[-1]) * temperature)
    scores = torch.matmul(q, k.transpose(-1, -2))
    scores.mul_(scale)
    if blocked is not None:
        scores.masked_fill_(blocked, -math.inf)
    weights = stable_softmax(scores, dim=-1)
    return torch.matmul(weights, v), weights
'''

MASKS_C = '''
def causal_mask_blocked(T):
    i = torch.arange(T).unsqueeze(1)
    j = torch.arange(T).unsqueeze(0)
    return j > i


def causal_mask_allowed(T):
    return causal_mask_blocked(T).logical_not()


def causal_mask_additive(T, dtype=torch.float32):
    return nn.Transformer.generate_square_subsequent_mask(T, dtype=dtype)


def padding_mask_blocked(lengths, T):
    return lengths.unsqueeze(-1) <= torch.arange(T)


def sdpa_mask(lengths, T):
    blocked = causal_mask_blocked(T).unsqueeze(0) | padding_mask_blocked(lengths, T).unsqueeze(1)  # (N, T, T)
    return torch.logical_not(blocked).unsqueeze(1)
'''

MULTIHEAD_C = '''
def split_heads(x, heads):
    Dh = x.shape[-1] // heads
    return torch.stack(torch.split(x, Dh, dim=-1), dim=1)   # one chunk of features per head


def merge_heads(x):
    return torch.cat(torch.unbind(x, dim=1), dim=-1)


def multi_head_self_attention(x, params, heads, blocked=None):
    H = heads
    w_q, w_k, w_v = params["in_proj_weight"].chunk(3, dim=0)
    b_q, b_k, b_v = params["in_proj_bias"].chunk(3, dim=0)
    q = split_heads(F.linear(x, w_q, b_q), H)
    k = split_heads(F.linear(x, w_k, b_k), H)
    v = split_heads(F.linear(x, w_v, b_v), H)
    outputs, maps = [], []
    for h in range(H):  # one read per head, one (T, T) map each
        out_h, weights_h = attention_read(q[:, h], k[:, h], v[:, h], blocked)
        outputs.append(out_h)
        maps.append(weights_h)
    out = merge_heads(torch.stack(outputs, dim=1))
    return F.linear(out, params["out_proj.weight"], params["out_proj.bias"]), torch.stack(maps, dim=1)
'''

POSITIONS_C = '''
def sinusoidal_positions(length, width):
    pos = torch.arange(length, dtype=torch.float64)
    pe = torch.zeros(length, width, dtype=torch.float64)
    for i in range(0, width, 2):  # column pair (i, i+1) shares one frequency
        angle = pos / 10000 ** (i / width)
        pe[:, i] = torch.sin(angle)
        pe[:, i + 1] = torch.cos(angle)
    return pe.float()
'''

TARGETS_C = '''
def shift_for_next_token(tokens):
    return tokens[..., :-1].clone(), tokens[..., 1:].clone()


def next_token_loss(logits, targets):
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="mean")
'''

LEAKAGE_C = '''
@torch.no_grad()
def prefix_change(model, tokens, cut, vocab):
    modes = {module: module.training for module in model.modules()}
    model.eval()
    try:
        later = torch.arange(tokens.shape[1]) >= cut
        changed = torch.where(later, (tokens + 3) % vocab, tokens)
        diff = (model(tokens) - model(changed))[:, :cut].abs().flatten()
        return torch.cat([diff, diff.new_zeros(1)]).max().item()
    finally:
        for module, training in modes.items():
            module.training = training


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    if not change <= tol:
        raise AssertionError(f"positions before {cut} changed by {change} when the future changed (tol={tol})")
    return change
'''

# ---- what every one of them also hands in ------------------------------------------------------
ANSWER_Q1 = '''\
With the position table replaced by zeros (experiment cell below) nothing got worse: validation 0.0065 and test 0.0065 against 0.0064 with sinusoidal positions, far under the uniform baseline 2.0794, and greedy generation from 2 still gives 2 3 4 5 6 7 0 1 2 3 4 5. A causal model without positions does not know *where* it is (apart from how many tokens it can see), but on this task it does not need to: the next token is always (last token + 1) mod 8, and the query position always sees its own token, so the rule depends on the current token alone. A task whose answer depends on order or distance (reversal, copying from k steps back) would break without positions.
'''

ANSWER_Q2 = '''\
A loss means nothing without a reference point. log(8) = 2.0794 is the cross-entropy of a model that knows nothing and spreads its probability evenly over the 8 tokens, so it is the floor any learning must beat. A test loss of 2.08 means the model learned nothing usable (it is no better than uniform guessing). A near-zero loss here only shows the model found a deterministic rule (next = last + 1 mod 8) on a toy, fully predictable sequence; it says nothing about language, where the next token is genuinely uncertain, depends on long context and meaning, and the achievable loss is far above zero.
'''

ANSWER_Q3 = '''\
An attention map shows where a head reads from, not what the read contributes: it is correlation, not a cause. The value vectors can be tiny, the output projection can discard that head, the residual path can carry the current token straight through (Q1 shows the last token alone suffices), and other heads or the second layer may do the work. To test the claim, intervene: ablate head 2 (zero its output before out_proj, or replace it by its mean) and measure the change in test loss and generation accuracy, compared with ablating each of the other heads; a large drop only for head 2 supports the claim, no drop refutes it. Patching head 2's output from another sequence is a sharper version of the same experiment.
'''

Q1_EXPERIMENT = '''\
if not GRADING:
    zero_positions = torch.zeros(MAX_POSITIONS, WIDTH)
    ablated, ablated_val = train_lab(EPOCHS["full"], zero_positions, causal_mask_blocked,
                                     shift_for_next_token, next_token_loss, leak_check=assert_no_future_leakage)
    with torch.no_grad():
        ablated_test = split_loss(ablated, lab_splits()["test"], shift_for_next_token, next_token_loss).item()
    print(f"no positions: validation {ablated_val:.4f} | test {ablated_test:.4f} | baseline {BASELINE:.4f}")
    print("generated from 2:", greedy_generate(ablated, 2))
'''

WRITTEN = {"q1_positions": ANSWER_Q1, "q2_baseline": ANSWER_Q2, "q3_attention_maps": ANSWER_Q3}

# The parts with a solution cell of their own, in notebook order (training has none: it runs the lab).
CELL_PARTS = tuple(p for p in PART_IDS if p != "training")


def _cells(*sources: str) -> dict:
    return dict(zip(CELL_PARTS, sources, strict=True))


HONEST_NOTEBOOKS = [
    Alternative("einsum_float64",
                "einsum everywhere, softmax computed in float64 and cast back, -inf masking, "
                "log-softmax + gather loss, clone-and-assign perturbation",
                _cells(SOFTMAX_READ_A, MASKS_A, MULTIHEAD_A, POSITIONS_A, TARGETS_A, LEAKAGE_A)),
    Alternative("matmul_finfo_view",
                "matmul / transpose / contiguous().view, masked_fill with torch.finfo minima and the fully "
                "blocked rows zeroed after, float32 exp-log positions, cross_entropy on (N, V, T)",
                _cells(SOFTMAX_READ_B, MASKS_B, MULTIHEAD_B, POSITIONS_B, TARGETS_B, LEAKAGE_B)),
    Alternative("functional_head_loop",
                "F.softmax on a detached shift with nan_to_num, in-place scaling and masking, heads by "
                "split/stack and a loop over heads, positions by a column loop, every module's mode restored",
                _cells(SOFTMAX_READ_C, MASKS_C, MULTIHEAD_C, POSITIONS_C, TARGETS_C, LEAKAGE_C)),
]


def honest_notebook(alternative: Alternative) -> nbformat.NotebookNode:
    """The committed student notebook as this student hands it in: answers filled, one cell added."""
    nb = apply_alternative(nbformat.read(STUDENT_NOTEBOOK, as_version=4), alternative)
    cells = []
    for cell in nb.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in WRITTEN:
            cell = copy.deepcopy(cell)
            cell.source = WRITTEN[grade_id].strip("\n")
        cells.append(cell)
        if grade_id == "q1_positions":  # the question asks for the experiment in a new cell
            cells.append(nbformat.v4.new_code_cell(Q1_EXPERIMENT.strip("\n")))
    nb.cells = cells
    return nb
