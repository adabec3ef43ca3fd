'''Correct answers in other idioms than the reference. Each replaces whole solution cells and
must score 100 / 100: the suites grade behaviour, not the reference's way of writing it.'''
from tests.corpus import Alternative

SOFTMAX_EINSUM_WHERE = '''
def stable_softmax(scores, dim=-1):
    peak = scores.max(dim=dim, keepdim=True).values
    peak = torch.nan_to_num(peak, neginf=0.0)  # an all -inf slice is shifted by 0
    shifted = torch.exp(scores - peak)
    total = shifted.sum(dim=dim, keepdim=True)
    return torch.where(total == 0, torch.zeros_like(shifted), shifted / total)


def attention_read(q, k, v, blocked=None, temperature=1.0):
    scale = 1.0 / (math.sqrt(q.shape[-1]) * temperature)
    scores = torch.einsum("...qd,...kd->...qk", q, k) * scale
    if blocked is not None:
        scores = torch.where(blocked, torch.full_like(scores, float("-inf")), scores)
    weights = stable_softmax(scores, dim=-1)
    return torch.einsum("...qk,...kd->...qd", weights, v), weights
'''

SOFTMAX_LOGSUMEXP_LOOP = '''
def stable_softmax(scores, dim=-1):
    lse = torch.logsumexp(scores, dim=dim, keepdim=True)
    return torch.where(torch.isinf(lse), torch.zeros_like(scores), torch.exp(scores - lse))


def attention_read(q, k, v, blocked=None, temperature=1.0):
    Tq, Tk = q.shape[-2], k.shape[-2]
    if blocked is not None:
        blocked = blocked.expand(*blocked.shape[:-2], Tq, Tk)
    rows = []
    for i in range(Tq):  # one query at a time
        row = (q[..., i:i + 1, :] * k).sum(-1) / q.shape[-1] ** 0.5 / temperature  # (..., Tk)
        if blocked is not None:
            row = row.masked_fill(blocked[..., i, :], -math.inf)
        rows.append(stable_softmax(row, dim=-1))
    weights = torch.stack(rows, dim=-2)  # (..., Tq, Tk)
    return torch.matmul(weights, v), weights
'''

MASKS_ARANGE = '''
def causal_mask_blocked(T):
    idx = torch.arange(T)
    return idx[None, :] > idx[:, None]


def causal_mask_allowed(T):
    return ~causal_mask_blocked(T)


def causal_mask_additive(T, dtype=torch.float32):
    blocked = causal_mask_blocked(T)
    return torch.where(blocked, torch.tensor(float("-inf"), dtype=dtype), torch.tensor(0.0, dtype=dtype))


def padding_mask_blocked(lengths, T):
    return torch.stack([torch.arange(T) >= int(n) for n in lengths])


def sdpa_mask(lengths, T):
    keys = ~padding_mask_blocked(lengths, T)  # (N, T)
    return (causal_mask_allowed(T).unsqueeze(0) & keys.unsqueeze(1)).unsqueeze(1)
'''

MASKS_ONES_TRIU = '''
def causal_mask_blocked(T):
    return torch.ones(T, T).triu(1).bool()


def causal_mask_allowed(T):
    return torch.logical_not(causal_mask_blocked(T))


def causal_mask_additive(T, dtype=torch.float32):
    return torch.full((T, T), float("-inf"), dtype=dtype).triu(1)


def padding_mask_blocked(lengths, T):
    return torch.arange(T).unsqueeze(0).ge(lengths.unsqueeze(1))


def sdpa_mask(lengths, T):
    allowed = torch.logical_and(causal_mask_allowed(T), ~padding_mask_blocked(lengths, T)[:, None, :])
    return allowed.reshape(len(lengths), 1, T, T)
'''

MULTIHEAD_PERMUTE_LOOP = '''
def split_heads(x, heads):
    N, T, D = x.shape
    return x.view(N, T, heads, D // heads).permute(0, 2, 1, 3)


def merge_heads(x):
    N, H, T, Dh = x.shape
    return x.permute(0, 2, 1, 3).contiguous().view(N, T, H * Dh)


def multi_head_self_attention(x, params, heads, blocked=None):
    D, H = x.shape[-1], heads
    W, b = params["in_proj_weight"], params["in_proj_bias"]
    q, k, v = (split_heads(F.linear(x, W[i * D:(i + 1) * D], b[i * D:(i + 1) * D]), H) for i in range(3))
    outputs, weights = [], []
    for h in range(H):  # one head at a time
        out, w = attention_read(q[:, h], k[:, h], v[:, h], blocked)
        outputs.append(out)
        weights.append(w)
    merged = merge_heads(torch.stack(outputs, dim=1))
    return F.linear(merged, params["out_proj.weight"], params["out_proj.bias"]), torch.stack(weights, dim=1)
'''

# PyTorch's own layer, given the parameters (issue 27's fresh-module and functional findings, on the signature that
# hands plain tensors): a student's use of the library, as honest_notebooks.py's style (c) returns
# nn.Transformer.generate_square_subsequent_mask from causal_mask_additive. The notebook asks for the layer by hand;
# no check of values can tell, and nothing handed to the function computes the answer (tests/corpus/oracle_only/).
MULTIHEAD_PYTORCH_LAYER = '''
def split_heads(x, heads):
    return x.unflatten(-1, (heads, -1)).movedim(2, 1)


def merge_heads(x):
    return x.movedim(1, 2).flatten(-2)


def multi_head_self_attention(x, params, heads, blocked=None):
    layer = nn.MultiheadAttention(x.size(-1), heads, batch_first=True)
    layer.load_state_dict(params)
    return layer(x, x, x, attn_mask=blocked, average_attn_weights=False)
'''

MULTIHEAD_FUNCTIONAL_LAYER = '''
def split_heads(x, heads):
    return torch.stack(x.tensor_split(heads, dim=-1), dim=1)


def merge_heads(x):
    return torch.cat(x.unbind(dim=1), dim=-1)


def multi_head_self_attention(x, params, heads, blocked=None):
    seq_first = x.transpose(0, 1)  # (T, N, D): the functional form is sequence-first
    out, weights = F.multi_head_attention_forward(
        seq_first, seq_first, seq_first, x.size(-1), heads, params["in_proj_weight"], params["in_proj_bias"],
        None, None, False, 0.0, params["out_proj.weight"], params["out_proj.bias"], training=False,
        attn_mask=blocked, average_attn_weights=False)
    return out.transpose(0, 1), weights
'''

POSITIONS_LOOPS = '''
def sinusoidal_positions(length, width):
    table = torch.zeros(length, width, dtype=torch.float64)
    for pos in range(length):
        for i in range(width // 2):
            angle = pos / 10000 ** (2 * i / width)
            table[pos, 2 * i] = math.sin(angle)
            table[pos, 2 * i + 1] = math.cos(angle)
    return table.to(torch.float32)
'''

POSITIONS_POW_STACK = '''
def sinusoidal_positions(length, width):
    pos = torch.arange(length, dtype=torch.float32).unsqueeze(1)
    two_i = torch.arange(0, width, 2, dtype=torch.float32)
    angle = pos / torch.pow(10000.0, two_i / width)  # (length, width / 2)
    return torch.stack([torch.sin(angle), torch.cos(angle)], dim=-1).reshape(length, width)
'''

TARGETS_GATHER = '''
def shift_for_next_token(tokens):
    T = tokens.shape[1] - 1
    return tokens.narrow(1, 0, T), tokens.narrow(1, 1, T)


def next_token_loss(logits, targets):
    log_probs = torch.log_softmax(logits, dim=-1)
    picked = log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # (N, T)
    return -picked.mean()
'''

TARGETS_CLASS_DIM = '''
def shift_for_next_token(tokens):
    inputs, targets = tokens[:, :-1].clone(), tokens[:, 1:].clone()
    return inputs, targets


def next_token_loss(logits, targets):
    return F.cross_entropy(logits.transpose(1, 2), targets)  # (N, V, T): classes in dim 1
'''

LEAKAGE_CAT_RAISE = '''
def prefix_change(model, tokens, cut, vocab):
    mode = model.training
    model.eval()
    changed = torch.cat([tokens[:, :cut], torch.remainder(tokens[:, cut:] + 3, vocab)], dim=1)
    with torch.inference_mode():
        a, b = model(tokens), model(changed)
    model.train(mode)
    return float((a[:, :cut] - b[:, :cut]).abs().amax())


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    if change > tol:
        raise AssertionError(f"the prefix moved by {change} (tolerance {tol})")
'''

# Written from the student notebook alone (a helper that never read the grader, 2026-12-06): addmm projections on
# (N*T, D), heads batched as (N*H, T, Dh) through attention_read, contiguous views.
MULTIHEAD_ADDMM_BATCHED = '''
def split_heads(x, heads):
    """(N, T, D) -> (N, heads, T, D // heads).

    Features h*Dh ... (h+1)*Dh - 1 of every position go to head h, where Dh = D // heads.
    """
    N, T, D = x.size()
    return x.contiguous().view(N, T, heads, D // heads).permute(0, 2, 1, 3).contiguous()


def merge_heads(x):
    """(N, H, T, Dh) -> (N, T, H * Dh), the inverse of split_heads."""
    N, H, T, Dh = x.size()
    return x.permute(0, 2, 1, 3).contiguous().view(N, T, H * Dh)


def multi_head_self_attention(x, params, heads, blocked=None):
    """Self-attention by hand from the layer's parameters: (N, T, D) -> (N, T, D), (N, H, T, T)."""
    N, T, D = x.size()
    H, Dh = heads, D // heads
    flat = x.contiguous().view(N * T, D)
    w_in, b_in = params["in_proj_weight"], params["in_proj_bias"]
    qkv = torch.addmm(b_in, flat, w_in.t()).view(N, T, 3 * D)       # (N, T, 3D)
    # one (N*H, T, Dh) batch per projection
    q, k, v = (split_heads(qkv[:, :, s * D:(s + 1) * D], H).view(N * H, T, Dh) for s in range(3))
    out, weights = attention_read(q, k, v, blocked)                 # (N*H, T, Dh), (N*H, T, T)
    merged = merge_heads(out.view(N, H, T, Dh)).view(N * T, D)
    out = torch.addmm(params["out_proj.bias"], merged, params["out_proj.weight"].t()).view(N, T, D)
    return out, weights.view(N, H, T, T)
'''

ALTERNATIVES = [
    Alternative("einsum_where_aranges", "einsum attention, torch.where masking, masks from arange comparisons",
                {"softmax_read": SOFTMAX_EINSUM_WHERE, "masks": MASKS_ARANGE}),
    Alternative("logsumexp_query_loop", "softmax through logsumexp, attention one query at a time",
                {"softmax_read": SOFTMAX_LOGSUMEXP_LOOP}),
    Alternative("permute_head_loop_position_loops", "view/permute heads, a loop over heads, positions by loops",
                {"multihead": MULTIHEAD_PERMUTE_LOOP, "positions": POSITIONS_LOOPS}),
    Alternative("gather_loss_cat_leakage", "log-softmax + gather loss, narrow shift, torch.cat perturbation",
                {"targets": TARGETS_GATHER, "leakage": LEAKAGE_CAT_RAISE}),
    Alternative("ones_triu_class_dim_pow", "torch.ones(...).triu masks, cross_entropy on (N, V, T), float32 pow",
                {"masks": MASKS_ONES_TRIU, "targets": TARGETS_CLASS_DIM, "positions": POSITIONS_POW_STACK}),
    Alternative("pytorch_layer_multihead", "unflatten/movedim heads; the layer by nn.MultiheadAttention loaded with "
                "the parameters", {"multihead": MULTIHEAD_PYTORCH_LAYER}),
    Alternative("functional_layer_multihead", "tensor_split/stack heads; the layer by F.multi_head_attention_forward "
                "fed the parameters", {"multihead": MULTIHEAD_FUNCTIONAL_LAYER}),
    Alternative("addmm_batched_heads", "addmm projections, heads as one (N*H, T, Dh) batch, contiguous views",
                {"multihead": MULTIHEAD_ADDMM_BATCHED}),
]
