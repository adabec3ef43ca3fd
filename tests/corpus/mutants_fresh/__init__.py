"""Fresh mutants for measuring the diagnosis (solutions/week7_attention/diagnosis/measure.py): realistic student
mistakes written for the measurement, after the library and NOT used to build or tune it.

Each carries the cause a good tutor would name (``expected``, a family id of the library),
decided when the mutant was written: None when no library cause describes the mistake (a
cause given there is wrong), "" when the edit is still correct (no cause may be given).
"""
from dataclasses import dataclass

from tests.corpus import Mutant


@dataclass(frozen=True)
class FreshMutant(Mutant):
    expected: object = None


def _f(name, part, function, old, new, why, expected, affects=()):
    return FreshMutant(name, part, function, old, new, why, affects, expected)


SOFTMAX, MASKS, MULTI, POS, TGT, LEAK = "softmax_read", "masks", "multihead", "positions", "targets", "leakage"
READ_AFFECTS, TRAINING = ("multihead",), ("training",)

FRESH = [
    _f("fresh_softmax_subtracts_min", SOFTMAX, "stable_softmax",
       "peak = scores.amax(dim=dim, keepdim=True)", "peak = scores.amin(dim=dim, keepdim=True)",
       "shifts by the minimum instead of the maximum: large spreads still overflow", "softmax_no_max_shift",
       READ_AFFECTS),
    _f("fresh_softmax_sum_dim_1", SOFTMAX, "stable_softmax",
       "total = weights.sum(dim=dim, keepdim=True)", "total = weights.sum(dim=1, keepdim=True)",
       "sums along a hard-coded dim 1", "softmax_wrong_axis", READ_AFFECTS),
    _f("fresh_read_scale_sqrt_dv", SOFTMAX, "attention_read",
       "/ math.sqrt(q.size(-1)) / temperature", "/ math.sqrt(v.size(-1)) / temperature",
       "scales by sqrt(dv) instead of sqrt(dk)", None, READ_AFFECTS),
    _f("fresh_read_mask_fill_zero", SOFTMAX, "attention_read",
       'scores.masked_fill(blocked, float("-inf"))', "scores.masked_fill(blocked, 0.0)",
       "fills blocked scores with 0 (a neutral score) instead of -inf", None, READ_AFFECTS),
    _f("fresh_read_temperature_in_one_division", SOFTMAX, "attention_read",
       "/ math.sqrt(q.size(-1)) / temperature", "/ (math.sqrt(q.size(-1)) * temperature)",
       "still correct: one division by sqrt(dk) * temperature", "", READ_AFFECTS),
    _f("fresh_read_where_keeps_blocked", SOFTMAX, "attention_read",
       'scores = scores.masked_fill(blocked, float("-inf"))',
       'scores = torch.where(blocked, scores, torch.full_like(scores, float("-inf")))',
       "torch.where with the branches the wrong way round: keeps blocked scores", "attention_mask_inverted",
       READ_AFFECTS),
    _f("fresh_read_torch_softmax", SOFTMAX, "attention_read",
       "weights = stable_softmax(scores, dim=-1)", "weights = torch.softmax(scores, dim=-1)",
       "torch.softmax in the read: NaN for a fully blocked query", "softmax_nan_blocked_rows", READ_AFFECTS),
    _f("fresh_blocked_float_ones", MASKS, "causal_mask_blocked",
       "torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)", "torch.triu(torch.ones(T, T), diagonal=1)",
       "a float 0/1 mask", "mask_not_bool", TRAINING),
    _f("fresh_allowed_upper", MASKS, "causal_mask_allowed",
       "torch.tril(torch.ones(T, T, dtype=torch.bool))", "torch.triu(torch.ones(T, T, dtype=torch.bool))",
       "upper triangle: allows the future and the present", "mask_triangle_transposed"),
    _f("fresh_additive_cast_bool", MASKS, "causal_mask_additive",
       'return mask.masked_fill(causal_mask_blocked(T), float("-inf"))', "return causal_mask_blocked(T).to(dtype)",
       "the blocked mask cast to float: 1.0 where blocked", "additive_ones_and_zeros"),
    _f("fresh_padding_less_than", MASKS, "padding_mask_blocked",
       ">= lengths[:, None]", "< lengths[:, None]",
       "True at real tokens", "padding_inverted"),
    _f("fresh_sdpa_or", MASKS, "sdpa_mask",
       "causal_mask_allowed(T)[None, :, :] & real_key[:, None, :]",
       "causal_mask_allowed(T)[None, :, :] | real_key[:, None, :]",
       "OR instead of AND", None),
    _f("fresh_split_reshape_only", MULTI, "split_heads",
       "return x.reshape(N, T, heads, D // heads).transpose(1, 2)", "return x.reshape(N, T, heads, D // heads)",
       "reshape without the transpose", "split_without_transpose"),
    _f("fresh_merge_permute_wrong", MULTI, "merge_heads",
       "return x.transpose(1, 2).reshape(N, T, H * Dh)", "return x.permute(0, 2, 3, 1).reshape(N, T, H * Dh)",
       "permutes Dh before H", "merge_wrong_order"),
    _f("fresh_mha_average_weights", MULTI, "multi_head_self_attention",
       '+ params["out_proj.bias"], weights', '+ params["out_proj.bias"], weights.mean(dim=1)',
       "returns head-averaged weights", "heads_averaged"),
    _f("fresh_mha_qvk", MULTI, "multi_head_self_attention",
       "q, k, v = (split_heads", "q, v, k = (split_heads",
       "keys and values rows swapped", "mha_projection_rows"),
    _f("fresh_positions_no_minus", POS, "sinusoidal_positions",
       "(-math.log(10000.0) / width)", "(math.log(10000.0) / width)",
       "drops the minus sign of the exponent", "positions_rate_inverted"),
    _f("fresh_positions_base_1000", POS, "sinusoidal_positions",
       "math.log(10000.0)", "math.log(1000.0)",
       "base 1000 instead of 10000", None),
    _f("fresh_shift_keeps_last", TGT, "shift_for_next_token",
       "return tokens[:, :-1], tokens[:, 1:]", "return tokens, tokens[:, 1:]",
       "inputs keep the last token", "shift_keeps_last_token", TRAINING),
    _f("fresh_loss_sum_over_batch", TGT, "next_token_loss",
       "return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1))",
       'return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), reduction="none").sum() / logits.size(0)',
       "per-sequence sums averaged over the batch", "loss_not_averaged", TRAINING),
    _f("fresh_loss_detach", TGT, "next_token_loss",
       "return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1))",
       "return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1)).detach()",
       "returns a detached loss", "loss_detached", TRAINING),
    _f("fresh_loss_softmax_first", TGT, "next_token_loss",
       "F.cross_entropy(logits.reshape(-1, V)", "F.cross_entropy(logits.softmax(-1).reshape(-1, V)",
       "softmax before cross_entropy", "loss_without_log_softmax", TRAINING),
    _f("fresh_prefix_train_mode", LEAK, "prefix_change",
       "    model.eval()\n", "    model.train()\n",
       "puts the model in train mode to measure", "prefix_train_mode", TRAINING),
    _f("fresh_prefix_includes_cut", LEAK, "prefix_change",
       "            before = model(tokens)[:, :cut]  # (N, cut, V)\n            after = model(changed)[:, :cut]\n",
       "            before = model(tokens)[:, :cut + 1]\n            after = model(changed)[:, :cut + 1]\n",
       "includes position cut in the prefix", "prefix_cut_off_by_one", TRAINING),
    _f("fresh_prefix_sum", LEAK, "prefix_change",
       "return (before - after).abs().max().item()", "return (before - after).abs().sum().item()",
       "sums the changes instead of the largest", None, TRAINING),
    _f("fresh_prefix_returns_tensor", LEAK, "prefix_change",
       "return (before - after).abs().max().item()", "return (before - after).abs().max()",
       "returns a 0-dim tensor", "prefix_returns_tensor", TRAINING),
    _f("fresh_assert_strict", LEAK, "assert_no_future_leakage",
       "assert change <= tol,", "assert change < tol,",
       "still correct: strict inequality", "", TRAINING),
    _f("fresh_assert_tuple", LEAK, "assert_no_future_leakage",
       'assert change <= tol, f"future-token leakage: prefix logits changed by {change:.3g} > tol {tol:g}"',
       'assert (change <= tol, f"future-token leakage: prefix logits changed by {change:.3g} > tol {tol:g}")',
       "asserts a tuple: never fires", "assert_never_fires", TRAINING),
]
assert len({m.name for m in FRESH}) == len(FRESH)
