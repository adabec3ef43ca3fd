"""The reference answers agree with PyTorch's own implementations (oracles from outside)."""
import pytest
import torch
from torch import nn
from torch.nn import functional as F

import solutions.reference as ref

N, T, H, DH = 2, 5, 3, 4
D = H * DH


def randn(*shape, seed=0, dtype=torch.float64):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


@pytest.mark.softmax_read
def test_stable_softmax_matches_torch_and_lesson():
    x = randn(N, T, 7)
    for dim in (0, 1, -1):
        torch.testing.assert_close(ref.stable_softmax(x, dim), torch.softmax(x, dim))
    lesson = ref.stable_softmax(torch.tensor([2.0, 0.5, -1.0]))
    torch.testing.assert_close(lesson, torch.tensor([0.7856, 0.1753, 0.0391]), atol=1e-4, rtol=0)
    assert torch.isfinite(ref.stable_softmax(torch.tensor([3000.0, 1000.0]))).all()
    blocked = ref.stable_softmax(torch.full((2, 3), float("-inf")))
    assert torch.equal(blocked, torch.zeros(2, 3))


@pytest.mark.softmax_read
@pytest.mark.parametrize("temperature", [1.0, 0.5, 2.0])
def test_attention_read_matches_sdpa(temperature):
    q, k, v = randn(N, H, 3, DH, seed=1), randn(N, H, 7, DH, seed=2), randn(N, H, 7, 6, seed=3)
    blocked = randn(3, 7, seed=4) > 0.8
    blocked[:, 0] = False  # SDPA returns NaN for fully blocked rows; keep every row readable
    out, weights = ref.attention_read(q, k, v, blocked, temperature)
    scale = 1 / (DH ** 0.5 * temperature)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=~blocked, scale=scale)  # True = allowed
    torch.testing.assert_close(out, expected)
    assert (weights[..., blocked] == 0).all()
    torch.testing.assert_close(weights.sum(-1), torch.ones(N, H, 3, dtype=torch.float64))


@pytest.mark.multihead
@pytest.mark.parametrize("masked", [False, True], ids=["no mask", "causal mask"])
@pytest.mark.parametrize("width, heads, length", [(8, 2, 5), (12, 3, 7), (16, 4, 1), (16, 16, 6), (10, 1, 4)])
def test_multi_head_self_attention_matches_module(width, heads, length, masked):
    """The reference, given only a layer's state_dict (plain tensors) and its head count, equals the layer itself."""
    torch.manual_seed(width * 100 + heads * 10 + length)
    mha = nn.MultiheadAttention(width, heads, batch_first=True).double()
    with torch.no_grad():
        mha.in_proj_bias.normal_()
        mha.out_proj.bias.normal_()
    params = {name: value.detach().clone() for name, value in mha.state_dict().items()}
    assert sorted(params) == ["in_proj_bias", "in_proj_weight", "out_proj.bias", "out_proj.weight"]
    x = randn(N, length, width, seed=5)
    blocked = ref.causal_mask_blocked(length) if masked else None
    out, weights = ref.multi_head_self_attention(x, params, heads, blocked)
    with torch.no_grad():
        expected, expected_weights = mha(x, x, x, attn_mask=blocked, average_attn_weights=False)
    torch.testing.assert_close(out, expected)
    torch.testing.assert_close(weights, expected_weights)
    assert weights.shape == (N, heads, length, length)
    assert torch.equal(ref.merge_heads(ref.split_heads(x, heads)), x)


@pytest.mark.masks
def test_blocked_mask_in_its_apis():
    """True = blocked: nn.TransformerEncoder's mask and nn.MultiheadAttention's attn_mask."""
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(D, H, 16, dropout=0.0, batch_first=True)
    encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    x = torch.randn(N, T, D)
    changed = x.clone()
    changed[:, 3:] += 1.0
    with torch.no_grad():
        a = encoder(x, mask=ref.causal_mask_blocked(T))
        b = encoder(changed, mask=ref.causal_mask_blocked(T))
        torch.testing.assert_close(a[:, :3], b[:, :3])  # the prefix cannot see the change
        torch.testing.assert_close(a, encoder(x, mask=nn.Transformer.generate_square_subsequent_mask(T)))
    mha = nn.MultiheadAttention(D, H, batch_first=True)
    _, weights = mha(x, x, x, attn_mask=ref.causal_mask_blocked(T), average_attn_weights=False)
    assert (weights[..., ref.causal_mask_blocked(T)] == 0).all()


@pytest.mark.masks
def test_allowed_and_sdpa_masks_in_sdpa():
    """True = allowed: F.scaled_dot_product_attention's boolean attn_mask."""
    q, k, v = randn(N, H, T, DH, seed=6), randn(N, H, T, DH, seed=7), randn(N, H, T, DH, seed=8)
    torch.testing.assert_close(F.scaled_dot_product_attention(q, k, v, attn_mask=ref.causal_mask_allowed(T)),
                               F.scaled_dot_product_attention(q, k, v, is_causal=True))
    lengths = torch.tensor([5, 2])
    mask = ref.sdpa_mask(lengths, T)
    assert mask.shape == (N, 1, T, T) and mask.dtype == torch.bool
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    blocked = ref.causal_mask_blocked(T) | ref.padding_mask_blocked(lengths, T)[:, None, None, :]
    expected, _ = ref.attention_read(q, k, v, blocked)
    torch.testing.assert_close(out, expected)


@pytest.mark.masks
def test_padding_mask_as_key_padding_mask():
    lengths = torch.tensor([5, 2, 3])
    x = torch.randn(3, T, D)
    mha = nn.MultiheadAttention(D, H, batch_first=True)
    _, weights = mha(x, x, x, key_padding_mask=ref.padding_mask_blocked(lengths, T), average_attn_weights=False)
    for n, length in enumerate(lengths.tolist()):
        assert (weights[n, :, :, length:] == 0).all()


@pytest.mark.masks
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_additive_mask_matches_generate_square_subsequent_mask(dtype):
    expected = nn.Transformer.generate_square_subsequent_mask(6, dtype=dtype)
    got = ref.causal_mask_additive(6, dtype)
    assert got.dtype == dtype
    torch.testing.assert_close(got, expected)


@pytest.mark.positions
def test_positions_match_the_formula_in_float64():
    table = ref.sinusoidal_positions(40, 16)
    assert table.dtype == torch.float32
    pos = torch.arange(40, dtype=torch.float64)[:, None]
    i = torch.arange(8, dtype=torch.float64)
    angle = pos / 10000 ** (2 * i / 16)
    torch.testing.assert_close(table[:, 0::2].double(), torch.sin(angle), atol=1e-6, rtol=0)
    torch.testing.assert_close(table[:, 1::2].double(), torch.cos(angle), atol=1e-6, rtol=0)


@pytest.mark.targets
def test_targets_and_loss_match_cross_entropy():
    tokens = torch.arange(12).reshape(2, 6) % 8
    inputs, targets = ref.shift_for_next_token(tokens)
    assert torch.equal(inputs, tokens[:, :-1]) and torch.equal(targets, tokens[:, 1:])
    logits = randn(2, 5, 8, seed=9)
    manual = -torch.log_softmax(logits, -1).gather(-1, targets[..., None]).mean()
    torch.testing.assert_close(ref.next_token_loss(logits, targets), manual)


@pytest.mark.leakage
def test_leakage_check_on_causal_and_leaky_encoders():
    from solutions.lab import lab
    positions = ref.sinusoidal_positions(lab.MAX_POSITIONS, lab.WIDTH)
    tokens = lab.counting_sequences(4, seed=0)[:, :-1]
    causal = lab.TinyTransformer(positions, ref.causal_mask_blocked).train()
    assert ref.prefix_change(causal, tokens, 5, lab.VOCAB) < 1e-5
    assert causal.training
    leaky = lab.TinyTransformer(positions, lambda T: None)
    with pytest.raises(AssertionError, match="leakage"):
        ref.assert_no_future_leakage(leaky, tokens, 5, lab.VOCAB)
