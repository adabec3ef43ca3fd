"""masks: known wrong versions of the causal, additive, padding and SDPA masks."""
import torch

from solutions.reference import causal_mask_allowed as ref_allowed
from solutions.reference import causal_mask_blocked as ref_blocked
from solutions.reference import padding_mask_blocked as ref_padding

from .core import Family, Misconception

CONVENTION = (" Re-read 7.6: in nn.MultiheadAttention and nn.TransformerEncoder masks True means blocked; in "
              "scaled_dot_product_attention True means allowed.")

BLOCKS_DIAGONAL = Family("mask_blocks_diagonal", (
    "the diagonal is blocked too (torch.triu(..., diagonal=0)): each token may not read itself, and the first "
    "query has no key left at all, so its row is NaN inside nn.MultiheadAttention and training breaks. "
    "Only keys strictly after the query are blocked: torch.triu(ones, diagonal=1)." + CONVENTION))
BLOCKED_AS_ALLOWED = Family("mask_blocked_in_allowed_convention", (
    "causal_mask_blocked returns the allowed pattern (True on and below the diagonal, the SDPA convention). "
    "Handed to nn.TransformerEncoder, it blocks the past and the current token and lets every query read only "
    "the future: the model cheats in training and fails at generation." + CONVENTION))
BLOCKS_PAST = Family("mask_triangle_transposed", (
    "the mask marks the wrong triangle: it covers keys before the query instead of after it (a transposed "
    "mask). A model trained with it reads the future and ignores the past. Query i is the row, key j the "
    "column: block j > i (torch.triu(..., diagonal=1))." + CONVENTION))
NOT_BOOL = Family("mask_not_bool", (
    "the mask is a float tensor of 0s and 1s, not torch.bool. PyTorch reads a float mask as something to ADD "
    "to the scores, so 1.0 is a small bonus, not a block: the future stays visible. Build boolean masks with "
    "dtype=torch.bool (and the additive form with 0.0 and -inf)." + CONVENTION))
ALLOWED_AS_BLOCKED = Family("mask_allowed_in_blocked_convention", (
    "causal_mask_allowed returns the blocked pattern (True strictly above the diagonal). In "
    "scaled_dot_product_attention True means allowed, so this mask lets each query read only the future." +
    CONVENTION))
ALLOWED_NO_DIAGONAL = Family("mask_allowed_without_diagonal", (
    "the allowed mask leaves out the diagonal (torch.tril(..., diagonal=-1)): a token may not read itself, and "
    "the first query may read nothing (a NaN row in SDPA). Allowed keys are j <= i: torch.tril(ones) with the "
    "default diagonal=0." + CONVENTION))
ADDITIVE_FINITE = Family("additive_finite", (
    "blocked entries are a large finite negative number (e.g. -1e9) instead of -inf. It looks harmless in float32 "
    "but it is not the same matrix as generate_square_subsequent_mask, overflows to -inf in float16, and a "
    "fully blocked row becomes uniform instead of zero. Use float('-inf') where blocked and 0.0 elsewhere."))
ADDITIVE_SIGN = Family("additive_plus_inf", (
    "blocked entries are +inf instead of -inf. Added to the scores, +inf makes the future the ONLY thing a "
    "query reads (and inf - inf gives NaN in the softmax). An additive mask pushes blocked scores down: "
    "-inf where blocked, 0.0 where allowed."))
ADDITIVE_DTYPE = Family("additive_ignores_dtype", (
    "the dtype argument is ignored: the mask is always float32. Adding a float32 mask to float16 or float64 "
    "scores either fails or silently changes the scores' dtype. Create the tensor with dtype=dtype "
    "(torch.zeros(T, T, dtype=dtype))."))
ADDITIVE_ONES = Family("additive_ones_and_zeros", (
    "the additive mask holds 1s and 0s (a boolean mask cast to float) instead of 0.0 and -inf. Added to the "
    "scores, 1.0 barely changes the softmax, so nothing is blocked and the model reads the future. An additive "
    "mask is 0.0 where allowed and -inf where blocked (nn.Transformer.generate_square_subsequent_mask)."))
ADDITIVE_INVERTED = Family("additive_inverted", (
    "-inf sits below the diagonal (the past) and 0.0 above it: each query is blocked from the past and reads "
    "the future. -inf goes where key j > query i, i.e. strictly above the diagonal."))
PADDING_OFF_BY_ONE = Family("padding_off_by_one", (
    "the padding mask uses t > length instead of t >= length: the first padding position (t = length) counts "
    "as a real token, so every padded sequence attends to one pad token. Positions 0 .. length-1 are real; "
    "padding starts AT length."))
PADDING_TRANSPOSED = Family("padding_transposed", (
    "the padding mask is (T, N) instead of (N, T): the batch and time axes are swapped. key_padding_mask has "
    "one row per sequence: torch.arange(T)[None, :] >= lengths[:, None]."))
PADDING_INVERTED = Family("padding_inverted", (
    "the padding mask is True at the real tokens and False at the padding: as key_padding_mask (True = "
    "blocked) it hides every real token and lets queries read only padding." + CONVENTION))
SDPA_NO_PADDING = Family("sdpa_without_padding", (
    "the SDPA mask is only causal: padding keys stay allowed, so real tokens attend to pad tokens whose "
    "content is meaningless. Padding masks and causal masks address different positions and both are "
    "needed (7.6): allowed = causal AND not padding."))
SDPA_NO_CAUSAL = Family("sdpa_without_causal", (
    "the SDPA mask only removes padding: the future is allowed, so a decoder trained with it reads the token "
    "it must predict. Combine both: allowed = (j <= i) AND (j < length) (7.6)."))
SDPA_PADDING_QUERIES = Family("sdpa_padding_on_queries", (
    "the padding is applied to the queries (rows) instead of the keys (columns). What must be hidden is "
    "reading FROM a pad token: mask the key axis, real_key[:, None, :] broadcast over the query rows."))
SDPA_HEAD_DIM = Family("sdpa_mask_head_dim", (
    "the SDPA mask has no singleton head axis where SDPA expects it: (N, T, T) broadcast against "
    "(N, H, T, T) lines the batch up with the heads. Return (N, 1, T, T) (allowed[:, None])."))
SDPA_BLOCKED = Family("sdpa_mask_blocked_convention", (
    "the SDPA mask marks what is blocked (future or padding) instead of what is allowed. For "
    "F.scaled_dot_product_attention a boolean True means the key MAY be read." + CONVENTION))


def blocked_diagonal_0(T):
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=0)


def blocked_tril(T):
    return torch.tril(torch.ones(T, T, dtype=torch.bool))


def blocked_lower(T):
    return torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1)


def blocked_float(T):
    return torch.triu(torch.ones(T, T), diagonal=1)


def allowed_triu(T):
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)


def allowed_no_diagonal(T):
    return torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1)


def allowed_upper(T):
    return torch.triu(torch.ones(T, T, dtype=torch.bool))


def allowed_float(T):
    return torch.tril(torch.ones(T, T))


def additive(fill=float("-inf"), use_dtype=True, blocked=ref_blocked):
    def causal_mask_additive(T, dtype=torch.float32):
        mask = torch.zeros(T, T, dtype=dtype if use_dtype else torch.float32)
        return mask.masked_fill(blocked(T), fill)
    return causal_mask_additive


def additive_ones(T, dtype=torch.float32):
    return ref_blocked(T).to(dtype)


def additive_allowed_ones(T, dtype=torch.float32):
    return ref_allowed(T).to(dtype)


def padding_greater(lengths, T):
    return torch.arange(T)[None, :] > lengths[:, None]


def padding_transposed(lengths, T):
    return torch.arange(T)[:, None] >= lengths[None, :]


def padding_inverted(lengths, T):
    return torch.arange(T)[None, :] < lengths[:, None]


def sdpa(allowed=ref_allowed, padding=ref_padding, rule="both"):
    def sdpa_mask(lengths, T):
        real_key = ~padding(lengths, T)
        causal = allowed(T)
        if rule == "no_padding":
            out = causal[None, :, :].expand(len(lengths), T, T)
        elif rule == "no_causal":
            out = real_key[:, None, :].expand(-1, T, T)
        elif rule == "queries":
            out = causal[None, :, :] & real_key[:, :, None]
        else:
            out = causal[None, :, :] & real_key[:, None, :]
        if rule == "no_head_dim":
            return out
        if rule == "head_dim_2":
            return out[:, :, None, :]
        if rule == "blocked":
            return ~out[:, None, :, :]
        return out[:, None, :, :]
    return sdpa_mask


MISCONCEPTIONS = [
    Misconception("blocked_diagonal_0", "causal_mask_blocked", BLOCKS_DIAGONAL, blocked_diagonal_0),
    Misconception("blocked_allowed_convention", "causal_mask_blocked", BLOCKED_AS_ALLOWED, blocked_tril),
    Misconception("blocked_lower_triangle", "causal_mask_blocked", BLOCKS_PAST, blocked_lower),
    Misconception("blocked_float", "causal_mask_blocked", NOT_BOOL, blocked_float),
    Misconception("allowed_blocked_convention", "causal_mask_allowed", ALLOWED_AS_BLOCKED, allowed_triu),
    Misconception("allowed_no_diagonal", "causal_mask_allowed", ALLOWED_NO_DIAGONAL, allowed_no_diagonal),
    Misconception("allowed_upper_triangle", "causal_mask_allowed", BLOCKS_PAST, allowed_upper),
    Misconception("allowed_float", "causal_mask_allowed", NOT_BOOL, allowed_float),
    Misconception("additive_minus_1e9", "causal_mask_additive", ADDITIVE_FINITE, additive(fill=-1e9)),
    Misconception("additive_finfo_min", "causal_mask_additive", ADDITIVE_FINITE,
                  additive(fill=torch.finfo(torch.float32).min)),
    Misconception("additive_plus_inf", "causal_mask_additive", ADDITIVE_SIGN, additive(fill=float("inf"))),
    Misconception("additive_ignores_dtype", "causal_mask_additive", ADDITIVE_DTYPE, additive(use_dtype=False)),
    Misconception("additive_ones", "causal_mask_additive", ADDITIVE_ONES, additive_ones),
    Misconception("additive_allowed_ones", "causal_mask_additive", ADDITIVE_ONES, additive_allowed_ones),
    Misconception("additive_inverted", "causal_mask_additive", ADDITIVE_INVERTED, additive(blocked=blocked_lower)),
    Misconception("padding_greater_than", "padding_mask_blocked", PADDING_OFF_BY_ONE, padding_greater),
    Misconception("padding_transposed", "padding_mask_blocked", PADDING_TRANSPOSED, padding_transposed),
    Misconception("padding_inverted", "padding_mask_blocked", PADDING_INVERTED, padding_inverted),
    Misconception("sdpa_without_padding", "sdpa_mask", SDPA_NO_PADDING, sdpa(rule="no_padding")),
    Misconception("sdpa_without_causal", "sdpa_mask", SDPA_NO_CAUSAL, sdpa(rule="no_causal")),
    Misconception("sdpa_padding_on_queries", "sdpa_mask", SDPA_PADDING_QUERIES, sdpa(rule="queries")),
    Misconception("sdpa_no_head_dim", "sdpa_mask", SDPA_HEAD_DIM, sdpa(rule="no_head_dim")),
    Misconception("sdpa_head_dim_misplaced", "sdpa_mask", SDPA_HEAD_DIM, sdpa(rule="head_dim_2")),
    Misconception("sdpa_blocked_convention", "sdpa_mask", SDPA_BLOCKED, sdpa(rule="blocked")),
]

_BLOCKED = [m for m in MISCONCEPTIONS if m.function == "causal_mask_blocked"]
_ALLOWED = [m for m in MISCONCEPTIONS if m.function == "causal_mask_allowed"]
_PADDING = [m for m in MISCONCEPTIONS if m.function == "padding_mask_blocked"]

# causal_mask_additive is usually built from causal_mask_blocked, sdpa_mask from the allowed and
# padding masks: their mistakes show up there too.
THROUGH = (
    [Misconception(f"additive_with_{m.id}", "causal_mask_additive", m.family, additive(blocked=m.compute),
                   origin="causal_mask_blocked") for m in _BLOCKED if m.id != "blocked_float"]
    + [Misconception(f"sdpa_with_{m.id}", "sdpa_mask", m.family, sdpa(allowed=m.compute),
                     origin="causal_mask_allowed") for m in _ALLOWED if m.id != "allowed_float"]
    + [Misconception(f"sdpa_with_{m.id}", "sdpa_mask", m.family, sdpa(padding=m.compute),
                     origin="padding_mask_blocked") for m in _PADDING if m.id != "padding_transposed"]
)

MISCONCEPTIONS = MISCONCEPTIONS + THROUGH
