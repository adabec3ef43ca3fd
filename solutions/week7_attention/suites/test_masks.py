"""masks: each mask by its structure, and by its effect inside the PyTorch API of its convention.

nn.MultiheadAttention / nn.TransformerEncoder read True as blocked; SDPA reads True as
allowed. A submission that swaps the conventions fails both the structure and the effect.
"""
import math

import pytest
import torch
from torch import nn
from torch.nn import functional as F

from solutions.week7_attention.served.probes import generator, mha_layer, seed
from solutions.week7_attention.suites.expect import expect_close, expect_dtype, expect_shape
from solutions.week7_attention.suites.tolerances import TOL

pytestmark = pytest.mark.part("masks")

LENGTHS = [5, 2, 3]  # ragged: one full sequence, two padded ones
T, D, HEADS, DH = 5, 12, 3, 4
SWAP = "True means blocked for nn.MultiheadAttention / nn.TransformerEncoder, allowed for SDPA."


def _randn(*shape, seed):
    return torch.randn(*shape, generator=generator(seed))


def _blocked_by_rule(size):
    return torch.tensor([[j > i for j in range(size)] for i in range(size)], dtype=torch.bool)


def _pytorch_blocked(size):
    """PyTorch's own causal mask, in its additive form: -inf marks a blocked entry."""
    return torch.isinf(nn.Transformer.generate_square_subsequent_mask(size))


def _mask(value, shape, what):
    expect_shape(value, shape, what)
    return expect_dtype(value, torch.bool, what, "Masks for PyTorch's boolean conventions are torch.bool.")


@pytest.mark.points(1)
def test_causal_blocked_structure(student):
    """causal_mask_blocked is (T, T) bool, True strictly above the diagonal"""
    for size in (1, 4, 7):
        got = _mask(student.causal_mask_blocked(size), (size, size), f"causal_mask_blocked({size})")
        expect_close(got, _pytorch_blocked(size), f"causal_mask_blocked({size})",
                     why=lambda i: "key after the query: blocked" if i[1] > i[0] else "key at or before the query",
                     hint=SWAP)


@pytest.mark.points(1)
def test_causal_allowed_structure(student, ref):
    """causal_mask_allowed is (T, T) bool, True on and below the diagonal"""
    for size in (1, 4, 7):
        got = _mask(student.causal_mask_allowed(size), (size, size), f"causal_mask_allowed({size})")
        expect_close(got, ~_blocked_by_rule(size), f"causal_mask_allowed({size})",
                     why=lambda i: "key after the query" if i[1] > i[0] else "key at or before the query: allowed",
                     hint=SWAP)
        expect_close(got, ref.causal_mask_allowed(size), f"causal_mask_allowed({size})")


@pytest.mark.points(1)
def test_blocked_allowed_complements(student):
    """causal_mask_blocked and causal_mask_allowed are exact complements"""
    for size in (1, 4, 6):
        blocked = _mask(student.causal_mask_blocked(size), (size, size), f"causal_mask_blocked({size})")
        allowed = _mask(student.causal_mask_allowed(size), (size, size), f"causal_mask_allowed({size})")
        expect_close(allowed, ~blocked, f"causal_mask_allowed({size}) against ~causal_mask_blocked({size})",
                     hint="The two masks must be exact opposites: allowed == ~blocked entry by entry.")


@pytest.mark.points(2)
def test_additive_matches_pytorch(student):
    """causal_mask_additive equals nn.Transformer.generate_square_subsequent_mask"""
    for size in (1, 5):
        got = student.causal_mask_additive(size)
        what = f"causal_mask_additive({size})"
        expect_shape(got, (size, size), what)
        expect_dtype(got, torch.float32, what, "The default dtype is torch.float32.")
        expect_close(got, nn.Transformer.generate_square_subsequent_mask(size), what,
                     why=lambda i: "blocked: should be -inf" if i[1] > i[0] else "allowed: should be 0.0")


@pytest.mark.points(1)
@pytest.mark.parametrize("dtype", [torch.float64, torch.float16], ids=["float64", "float16"])
def test_additive_dtype(student, dtype):
    """causal_mask_additive honours its dtype argument"""
    size = 4
    got = student.causal_mask_additive(size, dtype=dtype)
    what = f"causal_mask_additive({size}, dtype={dtype})"
    expect_dtype(got, dtype, what, "Build the mask in the requested dtype.")
    expect_close(got, nn.Transformer.generate_square_subsequent_mask(size, dtype=dtype), what)


def _encoder():
    torch.default_generator.manual_seed(seed(5))
    layer = nn.TransformerEncoderLayer(D, HEADS, 2 * D, dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()


@pytest.mark.points(2)
def test_blocked_in_transformer_encoder(student, ref):
    """causal_mask_blocked works as the mask of nn.TransformerEncoder"""
    size, cut = 6, 3
    mask = _mask(student.causal_mask_blocked(size), (size, size), f"causal_mask_blocked({size})")
    encoder = _encoder()
    x = _randn(2, size, D, seed=1)
    changed = x.clone()
    changed[:, cut:] = _randn(2, size - cut, D, seed=2)
    with torch.no_grad():
        out, out_changed = encoder(x, mask=mask), encoder(changed, mask=mask)
        expected = encoder(x, mask=ref.causal_mask_blocked(size))
        additive = encoder(x, mask=nn.Transformer.generate_square_subsequent_mask(size))
    expect_close(out_changed[:, :cut], out[:, :cut], "encoder output at positions < 3 after changing positions >= 3",
                 TOL["module"], hint="With a causal mask the past must not depend on the future. " + SWAP)
    expect_close(out, additive, "encoder output with your mask", TOL["module"])
    expect_close(out, expected, "encoder output with your mask", TOL["module"])


@pytest.mark.points(1)
def test_blocked_in_multihead_attention(student):
    """causal_mask_blocked works as the attn_mask of nn.MultiheadAttention"""
    mask = _mask(student.causal_mask_blocked(T), (T, T), f"causal_mask_blocked({T})")
    mha = mha_layer(D, HEADS, 3)
    x = _randn(2, T, D, seed=4)
    with torch.no_grad():
        out, weights = mha(x, x, x, attn_mask=mask, average_attn_weights=False)
        expected, expected_w = mha(x, x, x, attn_mask=nn.Transformer.generate_square_subsequent_mask(T),
                                   average_attn_weights=False)
    expect_close(weights, expected_w, "attention weights with your mask", TOL["module"],
                 why=lambda i: "future key" if i[3] > i[2] else "past or current key", hint=SWAP)
    expect_close(out, expected, "attention output with your mask", TOL["module"])


@pytest.mark.points(2)
def test_allowed_in_sdpa(student):
    """causal_mask_allowed in SDPA equals is_causal=True"""
    mask = _mask(student.causal_mask_allowed(T), (T, T), f"causal_mask_allowed({T})")
    q, k, v = (_randn(2, HEADS, T, DH, seed=s).double() for s in (6, 7, 8))
    got = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    expect_close(got, F.scaled_dot_product_attention(q, k, v, is_causal=True), "SDPA output with your mask",
                 TOL["float32"], hint=SWAP)


def _padding_by_rule(lengths, size):
    return torch.tensor([[t >= n for t in range(size)] for n in lengths], dtype=torch.bool)


@pytest.mark.points(1)
def test_padding_structure(student, ref):
    """padding_mask_blocked is (N, T) bool, True at padding"""
    for lengths, size in ((LENGTHS, T), ([1, 4], 6)):
        what = f"padding_mask_blocked(lengths={lengths}, T={size})"
        got = _mask(student.padding_mask_blocked(torch.tensor(lengths), size), (len(lengths), size), what)
        expect_close(got, _padding_by_rule(lengths, size), what,
                     why=lambda i: f"t={i[1]} >= length {lengths[i[0]]}: padding" if i[1] >= lengths[i[0]]
                     else f"t={i[1]} < length {lengths[i[0]]}: real token", hint=SWAP)
        expect_close(got, ref.padding_mask_blocked(torch.tensor(lengths), size), what)


@pytest.mark.points(2)
def test_padding_in_multihead_attention(student, ref):
    """padding_mask_blocked works as key_padding_mask: padded keys get 0 weight"""
    lengths = torch.tensor(LENGTHS)
    what = f"padding_mask_blocked(lengths={LENGTHS}, T={T})"
    mask = _mask(student.padding_mask_blocked(lengths, T), (len(LENGTHS), T), what)
    mha = mha_layer(D, HEADS, 9)
    x = _randn(len(LENGTHS), T, D, seed=10)
    with torch.no_grad():
        out, weights = mha(x, x, x, key_padding_mask=mask, average_attn_weights=False)
        expected, expected_w = mha(x, x, x, key_padding_mask=ref.padding_mask_blocked(lengths, T),
                                   average_attn_weights=False)
    padded = _padding_by_rule(LENGTHS, T)[:, None, None, :].expand_as(weights)
    expect_close(torch.where(padded, weights, 0.0), torch.zeros_like(weights), "attention weights with your mask",
                 why="padded key", hint=SWAP)
    expect_close(weights, expected_w, "attention weights with your mask", TOL["module"])
    expect_close(out, expected, "attention output with your mask", TOL["module"])


@pytest.mark.points(1)
def test_sdpa_mask_structure(student, ref):
    """sdpa_mask is (N, 1, T, T) bool: causal and not padding"""
    what = f"sdpa_mask(lengths={LENGTHS}, T={T})"
    got = _mask(student.sdpa_mask(torch.tensor(LENGTHS), T), (len(LENGTHS), 1, T, T), what)
    rule = torch.tensor([[[[j <= i and j < n for j in range(T)] for i in range(T)]] for n in LENGTHS])
    expect_close(got, rule, what, why=lambda i: ("future key" if i[3] > i[2] else "past/current key")
                 + (", padding" if i[3] >= LENGTHS[i[0]] else ", real token"),
                 hint="True = allowed: j <= i and j < lengths[n].")
    expect_close(got, ref.sdpa_mask(torch.tensor(LENGTHS), T), what)


@pytest.mark.points(2)
def test_sdpa_mask_in_sdpa(student):
    """sdpa_mask inside SDPA matches an explicit masked attention (ragged lengths)"""
    what = f"sdpa_mask(lengths={LENGTHS}, T={T})"
    mask = _mask(student.sdpa_mask(torch.tensor(LENGTHS), T), (len(LENGTHS), 1, T, T), what)
    q, k, v = (_randn(len(LENGTHS), HEADS, T, DH, seed=s).double() for s in (11, 12, 13))
    got = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    scores = q @ k.transpose(-2, -1) / math.sqrt(DH)  # (N, H, T, T)
    for n, length in enumerate(LENGTHS):
        scores[n, :, :, length:] = float("-inf")
    scores = scores.masked_fill(_blocked_by_rule(T), float("-inf"))
    expected = torch.softmax(scores, dim=-1) @ v
    expect_close(got, expected, "SDPA output with your mask", TOL["float32"],
                 hint="Allowed = not in the future AND not padding; " + SWAP)
