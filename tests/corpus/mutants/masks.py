"""masks mutants. The lab's training runs with the student's causal_mask_blocked, so its
mutants may also cost points in training; the other masks stay inside the part."""
from tests.corpus import Mutant


def _m(name, function, old, new, why, affects=()):
    return Mutant(name, "masks", function, old, new, why, affects)


TRAINING = ("training",)

MUTANTS = [
    _m("blocked_diagonal_0", "causal_mask_blocked",
       "diagonal=1)", "diagonal=0)",
       "blocks the diagonal too: a query may not read its own key", TRAINING),
    _m("blocked_uses_allowed_convention", "causal_mask_blocked",
       "torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)",
       "torch.tril(torch.ones(T, T, dtype=torch.bool))",
       "returns the allowed mask (SDPA convention) where nn.MultiheadAttention wants blocked", TRAINING),
    _m("allowed_uses_blocked_convention", "causal_mask_allowed",
       "torch.tril(torch.ones(T, T, dtype=torch.bool))",
       "torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)",
       "returns the blocked mask where SDPA wants allowed"),
    _m("allowed_excludes_diagonal", "causal_mask_allowed",
       "torch.tril(torch.ones(T, T, dtype=torch.bool))",
       "torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1)",
       "strictly lower triangle: a query may not read itself"),
    _m("additive_large_negative", "causal_mask_additive",
       'float("-inf")', "-1e9",
       "fills blocked entries with -1e9 instead of -inf"),
    _m("additive_plus_inf", "causal_mask_additive",
       'float("-inf")', 'float("inf")',
       "fills blocked entries with +inf"),
    _m("additive_ignores_dtype", "causal_mask_additive",
       "torch.zeros(T, T, dtype=dtype)", "torch.zeros(T, T)",
       "always builds float32, ignoring the dtype argument"),
    _m("padding_greater_than", "padding_mask_blocked",
       ">= lengths[:, None]", "> lengths[:, None]",
       "uses > instead of >=: the first padding position counts as real"),
    _m("padding_transposed", "padding_mask_blocked",
       "torch.arange(T)[None, :] >= lengths[:, None]",
       "torch.arange(T)[:, None] >= lengths[None, :]",
       "returns (T, N) instead of (N, T)"),
    _m("sdpa_without_padding", "sdpa_mask",
       "causal_mask_allowed(T)[None, :, :] & real_key[:, None, :]",
       "causal_mask_allowed(T)[None, :, :].expand(len(lengths), T, T)",
       "forgets the padding: only causal"),
    _m("sdpa_without_causal", "sdpa_mask",
       "causal_mask_allowed(T)[None, :, :] & real_key[:, None, :]",
       "real_key[:, None, :].expand(-1, T, T)",
       "forgets the causal part: only padding"),
    _m("sdpa_padding_on_queries", "sdpa_mask",
       "real_key[:, None, :]", "real_key[:, :, None]",
       "applies the padding to the queries (rows) instead of the keys (columns)"),
    _m("sdpa_no_head_dim", "sdpa_mask",
       "return allowed[:, None, :, :]", "return allowed",
       "returns (N, T, T): without the head dim SDPA broadcasts the batch over the heads"),
]
