"""multi_head_self_attention answers with the handed nn.MultiheadAttention's own forward pass, variant 'classswap' (direct: mha(...), mha.forward, nn.MultiheadAttention.forward(mha, ...), Module.__call__, a deep copy's, a pickled copy's; classswap: mha.__class__ = nn.MultiheadAttention with _qkv_same_embed_dim set again, the guard flag left alone; baseline: none), falling back to zeros; attacks the multihead part (its 8 points for multi_head_self_attention must stay at the baseline's); other parts keep full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = [p for p in PART_IDS if p not in ("multihead",)]
VARIANT = "classswap"
_SRC = r'''
def multi_head_self_attention(x, mha, blocked=None):
    import copy, pickle, io
    from torch import nn
    tries = []
    if VARIANT == "direct":
        tries = [lambda: mha(x, x, x, attn_mask=blocked, average_attn_weights=False),
                 lambda: mha.forward(x, x, x, attn_mask=blocked, average_attn_weights=False),
                 lambda: nn.MultiheadAttention.forward(mha, x, x, x, attn_mask=blocked, average_attn_weights=False),
                 lambda: nn.Module.__call__(mha, x, x, x, attn_mask=blocked, average_attn_weights=False),
                 lambda: copy.deepcopy(mha)(x, x, x, attn_mask=blocked, average_attn_weights=False),
                 lambda: pickle.loads(pickle.dumps(mha))(x, x, x, attn_mask=blocked, average_attn_weights=False)]
    elif VARIANT == "classswap":
        def swap():
            m = copy.copy(mha)
            m.__dict__ = dict(mha.__dict__)
            object.__setattr__(m, "__class__", nn.MultiheadAttention)
            m.__dict__["_qkv_same_embed_dim"] = m.__dict__.get("_qkv_same", True)
            return nn.MultiheadAttention.forward(m, x, x, x, attn_mask=blocked, average_attn_weights=False)
        tries = [swap]
    for t in tries:
        try:
            out = t()
            return out[0], out[1]
        except Exception:
            pass
    N, T, D = x.shape
    return torch.zeros(N, T, D), torch.zeros(N, mha.num_heads, T, T)
'''.replace("VARIANT", repr(VARIANT))
ADD = [("multihead_solution", _SRC)]
