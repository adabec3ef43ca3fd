"""multihead: known wrong versions of split_heads, merge_heads and multi_head_self_attention."""
import math

from solutions.reference import attention_read as ref_read
from solutions.reference import merge_heads as ref_merge
from solutions.reference import split_heads as ref_split

from . import softmax_read
from .core import Family, Misconception

SPLIT_VIEW = Family("split_without_transpose", (
    "(N, T, D) is reshaped straight to (N, H, T, Dh) (or to (N, T, H, Dh) with no transpose). The memory "
    "order is positions-major, so each 'head' gets a block of whole positions instead of a slice of every "
    "position's features, and attention mixes tokens that are not in the sequence. Reshape to (N, T, H, Dh), "
    "then transpose(1, 2) (7.4: dmodel=64, heads=4 → 16 features per head, for every position)."))
SPLIT_INTERLEAVED = Family("split_interleaved", (
    "features are dealt to the heads in turn (feature d to head d % H) instead of in contiguous blocks: head h "
    "must get features h·Dh … (h+1)·Dh − 1, the rows of in_proj_weight that nn.MultiheadAttention gives it. "
    "Reshape to (N, T, H, Dh) (heads before head features), then transpose(1, 2)."))
SPLIT_NO_HEAD_AXIS = Family("split_missing_head_axis", (
    "the heads are folded into the batch axis ((N·H, T, Dh)) instead of getting their own axis (N, H, T, Dh). "
    "attention_read broadcasts over leading axes, so keep the head axis: reshape to (N, T, H, Dh) and "
    "transpose(1, 2)."))
MERGE_NO_TRANSPOSE = Family("merge_without_transpose", (
    "(N, H, T, Dh) is reshaped to (N, T, H·Dh) without moving the head axis back next to the features, so "
    "the output rows mix positions: position t receives other positions' head outputs. transpose(1, 2) "
    "back to (N, T, H, Dh) first, then reshape (concat(head₁,…,headₕ) per position, 7.4)."))
MERGE_ORDER = Family("merge_wrong_order", (
    "the heads are concatenated in the wrong order (feature-major: the first feature of every head, then the "
    "second…) so out_proj multiplies each head's features with another head's weights. concat(head₁,…,headₕ) "
    "puts head h at features h·Dh … (h+1)·Dh − 1: transpose(1, 2) then reshape."))
HEADS_AVERAGED = Family("heads_averaged", (
    "the heads are averaged instead of concatenated (or the returned weights are averaged over heads, "
    "nn.MultiheadAttention's default average_attn_weights=True). Each head has its own projections and its "
    "own weights: concatenate the outputs to width H·Dh and return per-head weights (N, H, T, T), 7.4."))
NO_IN_BIAS = Family("mha_no_in_proj_bias", (
    "the input projection uses in_proj_weight but not in_proj_bias. Q = X WQ + bQ (likewise K, V): "
    "nn.MultiheadAttention adds the bias, so x @ params[\"in_proj_weight\"].T + params[\"in_proj_bias\"]."))
NO_OUT_BIAS = Family("mha_no_out_proj_bias", (
    "the output projection uses out_proj.weight without out_proj.bias. The output projection is a Linear "
    "layer, weight and bias: merged @ params[\"out_proj.weight\"].T + params[\"out_proj.bias\"]."))
NO_OUT_PROJ = Family("mha_no_out_proj", (
    "the merged heads are returned without the output projection WO. MultiHead(X) = concat(head₁,…,headₕ) WO "
    "(7.4): finish with the output projection, params[\"out_proj.weight\"] and params[\"out_proj.bias\"], "
    "applied to merge_heads(...)."))
PROJ_ROWS = Family("mha_projection_rows", (
    "the rows of in_proj_weight are taken in the wrong order: PyTorch stacks them as [queries; keys; values] "
    "(rows 0..D−1 for Q, D..2D−1 for K, 2D..3D−1 for V). With Q and K swapped the weights are transposed, "
    "and with V swapped the layer reads the wrong content. Use qkv.chunk(3, dim=-1) in that order."))
SCALE_FULL = Family("mha_scale_by_model_width", (
    "the scores are scaled by √D (the model width) instead of √Dh (the width of one head). Each head's dot "
    "product is over Dh = D / H features: the scale is √(D // H), which attention_read gets from q.size(-1) "
    "once the heads are split."))


def split_view(x, heads):
    N, T, D = x.shape
    return x.view(N, heads, T, D // heads)


def split_interleaved(x, heads):
    N, T, D = x.shape
    return x.reshape(N, T, D // heads, heads).permute(0, 3, 1, 2)


def split_no_transpose(x, heads):
    N, T, D = x.shape
    return x.reshape(N, T, heads, D // heads)


def split_folded(x, heads):
    N, T, D = x.shape
    return x.reshape(N, T, heads, D // heads).transpose(1, 2).reshape(N * heads, T, D // heads)


def merge_no_transpose(x):
    N, H, T, Dh = x.shape
    return x.reshape(N, T, H * Dh)


def merge_feature_major(x):
    N, H, T, Dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(N, T, H * Dh)


def merge_mean(x):
    return x.mean(dim=1)


def mhsa(split=ref_split, merge=ref_merge, read=ref_read, in_bias=True, out="proj", order=(0, 1, 2),
         average=False, scale_full=False):
    """A parameterised multi_head_self_attention: the reference with one thing done differently."""
    def multi_head_self_attention(x, params, heads, blocked=None):
        qkv = x @ params["in_proj_weight"].T + (params["in_proj_bias"] if in_bias else 0.0)
        parts = qkv.chunk(3, dim=-1)
        q, k, v = (split(parts[i], heads) for i in order)
        if scale_full:  # scores by sqrt(D): q scaled by sqrt(Dh / D) before the read
            q = q * math.sqrt(q.size(-1)) / math.sqrt(x.size(-1))
        context, weights = read(q, k, v, blocked)
        merged = merge(context)
        if out == "proj":
            result = merged @ params["out_proj.weight"].T + params["out_proj.bias"]
        elif out == "weight":
            result = merged @ params["out_proj.weight"].T
        else:
            result = merged
        return result, (weights.mean(dim=1) if average else weights)
    return multi_head_self_attention


SPLIT = [
    Misconception("split_view_directly", "split_heads", SPLIT_VIEW, split_view),
    Misconception("split_no_transpose", "split_heads", SPLIT_VIEW, split_no_transpose),
    Misconception("split_interleaved", "split_heads", SPLIT_INTERLEAVED, split_interleaved),
    Misconception("split_heads_in_batch", "split_heads", SPLIT_NO_HEAD_AXIS, split_folded),
]
MERGE = [
    Misconception("merge_no_transpose", "merge_heads", MERGE_NO_TRANSPOSE, merge_no_transpose),
    Misconception("merge_feature_major", "merge_heads", MERGE_ORDER, merge_feature_major),
    Misconception("merge_mean_over_heads", "merge_heads", HEADS_AVERAGED, merge_mean),
]
LAYER = [
    Misconception("mha_no_in_proj_bias", "multi_head_self_attention", NO_IN_BIAS, mhsa(in_bias=False)),
    Misconception("mha_out_proj_weight_only", "multi_head_self_attention", NO_OUT_BIAS, mhsa(out="weight")),
    Misconception("mha_no_out_proj", "multi_head_self_attention", NO_OUT_PROJ, mhsa(out="none")),
    Misconception("mha_queries_keys_swapped", "multi_head_self_attention", PROJ_ROWS, mhsa(order=(1, 0, 2))),
    Misconception("mha_values_keys_swapped", "multi_head_self_attention", PROJ_ROWS, mhsa(order=(0, 2, 1))),
    Misconception("mha_values_first", "multi_head_self_attention", PROJ_ROWS, mhsa(order=(2, 1, 0))),
    Misconception("mha_weights_averaged", "multi_head_self_attention", HEADS_AVERAGED, mhsa(average=True)),
    Misconception("mha_scale_by_model_width", "multi_head_self_attention", SCALE_FULL, mhsa(scale_full=True)),
]

# multi_head_self_attention calls split_heads, merge_heads and attention_read (which calls
# stable_softmax): their mistakes make the layer wrong too, and are the ones to fix first.
_READS = [m for m in softmax_read.MISCONCEPTIONS if m.function == "attention_read"]
THROUGH = (
    [Misconception(f"mha_with_{m.id}", "multi_head_self_attention", m.family, mhsa(split=m.compute),
                   origin="split_heads") for m in SPLIT if m.id != "split_heads_in_batch"]
    + [Misconception(f"mha_with_{m.id}", "multi_head_self_attention", m.family, mhsa(merge=m.compute),
                     origin="merge_heads") for m in MERGE]
    + [Misconception(f"mha_with_{m.id}", "multi_head_self_attention", m.family, mhsa(read=m.compute),
                     origin=m.source) for m in _READS]
)

MISCONCEPTIONS = SPLIT + MERGE + LAYER + THROUGH
