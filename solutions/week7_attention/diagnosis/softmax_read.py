"""softmax_read: known wrong versions of stable_softmax and attention_read."""
import math

import torch

from solutions.reference import stable_softmax as ref_softmax

from .core import Family, Misconception

NO_SHIFT = Family("softmax_no_max_shift", (
    "the scores are exponentiated without subtracting their maximum first. exp(1000) overflows to inf and "
    "inf / inf is NaN, so large scores (long sequences, a sharp temperature, an unscaled dot product) turn "
    "whole rows of weights into NaN and training stops. Softmax does not change when you subtract a constant "
    "from every score of a row: re-read 7.2 (subtract the maximum along the same `dim`, with keepdim=True)."))
WRONG_AXIS = Family("softmax_wrong_axis", (
    "the maximum or the sum is taken along a fixed axis (the last one) instead of the `dim` you were given, so "
    "the weights sum to 1 along the wrong direction whenever dim is not -1. Softmax normalises one "
    "distribution per slice along `dim`: take amax and sum with dim=dim, keepdim=True."))
GLOBAL_SUM = Family("softmax_global_sum", (
    "the exponentials are divided by the sum of the whole tensor, not by the sum of each row: all rows "
    "together sum to 1, so every query's weights are too small and depend on the other queries. "
    "Normalise along `dim` only (sum(dim=dim, keepdim=True)); re-read 7.1: one distribution per query."))
NAN_ROWS = Family("softmax_nan_blocked_rows", (
    "a row whose scores are all -inf (a query that may read no key at all, e.g. a padded query) gives NaN: "
    "its maximum is -inf, (-inf) - (-inf) is NaN, and 0 / 0 is NaN. One NaN row spreads to the whole batch "
    "through the next matmul and the loss. Shift an all -inf row by 0 instead of its maximum and divide a zero "
    "sum by 1, so the row is all zeros (the convention of this assignment; torch.softmax gives NaN there)."))

NO_SQRT = Family("attention_no_sqrt_dk", (
    "the scores q·k are not divided by √dk. Dot products of dk-dimensional vectors grow like √dk, so the "
    "softmax saturates: one key gets almost all the weight and the gradients of the others vanish. "
    "Re-read 7.1–7.2: A = softmax(QKᵀ / √dk + mask), with dk = q.size(-1)."))
BY_DK = Family("attention_scale_by_dk", (
    "the scores are divided by dk instead of √dk. The weights come out too flat (for dk = 64 the scores are "
    "8 times too small), so every query averages its keys instead of picking the relevant ones. The formula "
    "is QKᵀ / √dk (math.sqrt(dk), not dk): re-read 7.2."))
TEMP_MULT = Family("attention_temperature_multiplies", (
    "the scores are multiplied by the temperature instead of divided by it, so a temperature above 1 "
    "sharpens the weights where it should flatten them (and below 1 the opposite). The scores are "
    "q kᵀ / √dk / temperature: re-read the temperature remark in 7.2."))
TEMP_SQRT = Family("attention_temperature_in_sqrt", (
    "the temperature is folded into the square root (√(dk·temperature)), so its effect is only √temperature. "
    "Temperature divides the already scaled scores: q kᵀ / √dk / temperature (the dimension scaling and the "
    "temperature are separate, 7.2)."))
TEMP_IGNORED = Family("attention_temperature_ignored", (
    "the temperature argument is not used: the weights are the same at every temperature. Divide the scaled "
    "scores by it: q kᵀ / √dk / temperature (7.2)."))
MASK_SWAPPED = Family("attention_mask_inverted", (
    "the mask is read the wrong way round: True entries are kept and False ones blocked (the SDPA "
    "convention). Here, as in nn.MultiheadAttention, True means blocked, so a causal model would read "
    "only the future. Re-read 7.6: boolean conventions differ by API."))
MASK_AFTER = Family("attention_mask_after_softmax", (
    "the blocked weights are zeroed after the softmax, so the remaining weights of a row no longer sum to 1 "
    "(the blocked keys still took their share of the normalisation). Block before the softmax: set blocked "
    "scores to -inf, then normalise (7.6: block future tokens before softmax)."))
FINITE_MASK = Family("attention_finite_mask", (
    "blocked scores are set to a large finite negative number (e.g. -1e9) instead of -inf. Ordinary rows "
    "look right, but a fully blocked row becomes uniform (every key gets 1/Tk) instead of zeros, so a "
    "query with nothing to read reads everything, padding included. Use float('-inf') with the stable "
    "softmax, which returns zeros for such a row."))
TRANSPOSE_K = Family("attention_transpose_k", (
    "k is transposed with fixed dims (k.transpose(1, 2) or k.T) instead of its last two, which is only right "
    "for 3-d inputs: with batch and head dims in front the scores mix heads and positions. Use "
    "k.transpose(-2, -1) so leading dims (batch, heads) broadcast (7.4)."))
QUERY_AXIS = Family("attention_softmax_over_queries", (
    "the softmax runs over the queries (dim=-2) instead of the keys: each key's weights sum to 1 across "
    "queries, so a query's weights are not a distribution and causal masking no longer means what it should. "
    "Normalise along the keys, dim=-1 (7.1: row-wise softmax over source keys)."))
RETURNS_SCORES = Family("attention_returns_scores", (
    "the second value returned is the raw (scaled, masked) scores, not the softmax weights. The caller "
    "expects weights: non-negative, each row summing to 1 over the keys, blocked keys exactly 0. Return "
    "the weights you multiplied with v."))
SCORES_TRANSPOSED = Family("attention_scores_transposed", (
    "the scores are k qᵀ (Tk, Tq) instead of q kᵀ (Tq, Tk): the rows are keys, not queries, so each key "
    "distributes weight over queries. With self-attention the shapes still match, which hides the bug. "
    "Scores are q @ k.transpose(-2, -1): one row per query (7.1)."))


# --- stable_softmax ---------------------------------------------------------------------------

def softmax_no_shift(scores, dim=-1):
    weights = torch.exp(scores)
    total = weights.sum(dim=dim, keepdim=True)
    return weights / torch.where(total > 0, total, torch.ones_like(total))


def softmax_no_shift_plain(scores, dim=-1):
    weights = torch.exp(scores)
    return weights / weights.sum(dim=dim, keepdim=True)


def softmax_sum_last_dim(scores, dim=-1):
    peak = scores.amax(dim=dim, keepdim=True)
    peak = torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak))
    weights = torch.exp(scores - peak)
    total = weights.sum(dim=-1, keepdim=True)
    return weights / torch.where(total > 0, total, torch.ones_like(total))


def softmax_last_dim_only(scores, dim=-1):
    return ref_softmax(scores, -1)


def softmax_global_sum(scores, dim=-1):
    peak = scores.max()
    peak = peak if torch.isfinite(peak) else torch.zeros_like(peak)
    weights = torch.exp(scores - peak)
    return weights / weights.sum()


def softmax_nan_rows(scores, dim=-1):
    weights = torch.exp(scores - scores.amax(dim=dim, keepdim=True))
    return weights / weights.sum(dim=dim, keepdim=True)


def softmax_nan_rows_division(scores, dim=-1):
    peak = scores.amax(dim=dim, keepdim=True)
    peak = torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak))
    weights = torch.exp(scores - peak)
    return weights / weights.sum(dim=dim, keepdim=True)


def softmax_torch(scores, dim=-1):
    return torch.softmax(scores, dim=dim)


SOFTMAX = [
    Misconception("softmax_no_shift", "stable_softmax", NO_SHIFT, softmax_no_shift),
    Misconception("softmax_no_shift_plain", "stable_softmax", NO_SHIFT, softmax_no_shift_plain),
    Misconception("softmax_sum_last_dim", "stable_softmax", WRONG_AXIS, softmax_sum_last_dim),
    Misconception("softmax_last_dim_only", "stable_softmax", WRONG_AXIS, softmax_last_dim_only),
    Misconception("softmax_global_sum", "stable_softmax", GLOBAL_SUM, softmax_global_sum),
    Misconception("softmax_nan_rows", "stable_softmax", NAN_ROWS, softmax_nan_rows),
    Misconception("softmax_nan_rows_division", "stable_softmax", NAN_ROWS, softmax_nan_rows_division),
    Misconception("softmax_torch_nan_rows", "stable_softmax", NAN_ROWS, softmax_torch),
]


# --- attention_read ---------------------------------------------------------------------------

def read(scale="sqrt", temperature_rule="divide", mask="before", fill=float("-inf"), kt="last",
         axis=-1, softmax=ref_softmax, returns="weights", order="qk"):
    """A parameterised attention_read: the reference with one thing done differently."""
    def attention_read(q, k, v, blocked=None, temperature=1.0):
        dk = q.size(-1)
        kt_ = k.transpose(-2, -1) if kt == "last" else k.transpose(1, 2)
        scores = q @ kt_ if order == "qk" else (k @ q.transpose(-2, -1))
        scores = scores / {"sqrt": math.sqrt(dk), "none": 1.0, "dk": dk}[scale]
        if temperature_rule == "divide":
            scores = scores / temperature
        elif temperature_rule == "multiply":
            scores = scores * temperature
        elif temperature_rule == "in_sqrt":
            scores = scores * math.sqrt(dk) / math.sqrt(dk * temperature)
        if blocked is not None and mask == "before":
            scores = scores.masked_fill(blocked, fill)
        elif blocked is not None and mask == "inverted":
            scores = scores.masked_fill(~blocked, fill)
        weights = softmax(scores, dim=axis)
        if blocked is not None and mask == "after":
            weights = weights.masked_fill(blocked, 0.0)
        return weights @ v, (scores if returns == "scores" else weights)
    return attention_read


READ = [
    Misconception("read_no_sqrt", "attention_read", NO_SQRT, read(scale="none")),
    Misconception("read_scale_by_dk", "attention_read", BY_DK, read(scale="dk")),
    Misconception("read_temperature_multiplies", "attention_read", TEMP_MULT, read(temperature_rule="multiply")),
    Misconception("read_temperature_in_sqrt", "attention_read", TEMP_SQRT, read(temperature_rule="in_sqrt")),
    Misconception("read_temperature_ignored", "attention_read", TEMP_IGNORED, read(temperature_rule="ignore")),
    Misconception("read_mask_inverted", "attention_read", MASK_SWAPPED, read(mask="inverted")),
    Misconception("read_mask_after_softmax", "attention_read", MASK_AFTER, read(mask="after")),
    Misconception("read_mask_minus_1e9", "attention_read", FINITE_MASK, read(fill=-1e9)),
    Misconception("read_mask_finfo_min", "attention_read", FINITE_MASK, read(fill=torch.finfo(torch.float32).min)),
    Misconception("read_transpose_1_2", "attention_read", TRANSPOSE_K, read(kt="1_2")),
    Misconception("read_softmax_over_queries", "attention_read", QUERY_AXIS, read(axis=-2)),
    Misconception("read_returns_scores", "attention_read", RETURNS_SCORES, read(returns="scores")),
    Misconception("read_scores_transposed", "attention_read", SCORES_TRANSPOSED, read(order="kq")),
    Misconception("read_torch_softmax", "attention_read", NAN_ROWS, read(softmax=softmax_torch)),
]

# attention_read calls stable_softmax: a wrong softmax shows up in the read as well.
THROUGH_SOFTMAX = [
    Misconception(f"read_with_{m.id}", "attention_read", m.family, read(softmax=m.compute), origin="stable_softmax")
    for m in SOFTMAX if m.id != "softmax_torch_nan_rows"
]

MISCONCEPTIONS = SOFTMAX + READ + THROUGH_SOFTMAX
