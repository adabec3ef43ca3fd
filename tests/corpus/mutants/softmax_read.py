"""softmax_read mutants: stable_softmax and attention_read. multi_head_self_attention calls
attention_read, so each of these may also cost points in multihead."""
from tests.corpus import Mutant

USED_BY = ("multihead",)


def _m(name, function, old, new, why):
    return Mutant(name, "softmax_read", function, old, new, why, USED_BY)


MUTANTS = [
    _m("softmax_no_max_shift", "stable_softmax",
       "peak = scores.amax(dim=dim, keepdim=True)",
       "peak = torch.zeros_like(scores.amax(dim=dim, keepdim=True))",
       "exponentiates the raw scores (no max subtraction): exp(1000) overflows"),
    _m("softmax_sum_over_last_dim", "stable_softmax",
       "total = weights.sum(dim=dim, keepdim=True)",
       "total = weights.sum(dim=-1, keepdim=True)",
       "normalises over the last dim whatever `dim` says"),
    _m("softmax_nan_for_all_inf_rows", "stable_softmax",
       "peak = torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak))",
       "peak = peak",
       "no guard for an all -inf slice: (-inf) - (-inf) gives NaN rows"),
    _m("softmax_divides_by_zero", "stable_softmax",
       "return weights / torch.where(total > 0, total, torch.ones_like(total))",
       "return weights / total",
       "divides an all-zero slice by its zero sum: NaN instead of zeros"),
    _m("attention_no_sqrt_dk", "attention_read",
       "/ math.sqrt(q.size(-1)) / temperature",
       "/ temperature",
       "forgets to scale the scores by 1/sqrt(dk)"),
    _m("attention_scale_by_dk", "attention_read",
       "/ math.sqrt(q.size(-1)) / temperature",
       "/ q.size(-1) / temperature",
       "scales by 1/dk instead of 1/sqrt(dk)"),
    _m("attention_temperature_multiplies", "attention_read",
       "/ math.sqrt(q.size(-1)) / temperature",
       "/ math.sqrt(q.size(-1)) * temperature",
       "multiplies the scores by the temperature instead of dividing"),
    _m("attention_temperature_inside_sqrt", "attention_read",
       "/ math.sqrt(q.size(-1)) / temperature",
       "/ math.sqrt(q.size(-1) * temperature)",
       "folds the temperature into the square root"),
    _m("attention_opposite_mask", "attention_read",
       'scores = scores.masked_fill(blocked, float("-inf"))',
       'scores = scores.masked_fill(~blocked, float("-inf"))',
       "reads True as allowed (the SDPA convention) and blocks the allowed keys"),
    _m("attention_mask_after_softmax", "attention_read",
       '    if blocked is not None:\n'
       '        scores = scores.masked_fill(blocked, float("-inf"))\n'
       '    weights = stable_softmax(scores, dim=-1)\n',
       '    weights = stable_softmax(scores, dim=-1)\n'
       '    if blocked is not None:\n'
       '        weights = weights.masked_fill(blocked, 0.0)\n',
       "zeroes blocked weights after the softmax, so rows no longer sum to 1"),
    _m("attention_large_negative_mask", "attention_read",
       'scores.masked_fill(blocked, float("-inf"))',
       "scores.masked_fill(blocked, -1e9)",
       "masks with -1e9 instead of -inf: a fully blocked row becomes uniform"),
    _m("attention_transpose_dims_1_2", "attention_read",
       "q @ k.transpose(-2, -1)",
       "q @ k.transpose(1, 2)",
       "transposes dims 1 and 2 of k, which is only right for 3-d inputs"),
    _m("attention_softmax_over_queries", "attention_read",
       "weights = stable_softmax(scores, dim=-1)",
       "weights = stable_softmax(scores, dim=-2)",
       "normalises over the queries instead of the keys"),
]
