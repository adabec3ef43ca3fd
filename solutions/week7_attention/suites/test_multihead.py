"""multihead: split_heads / merge_heads by feature routing, and the whole layer against nn.MultiheadAttention.

multi_head_self_attention receives the layer's parameters (its state_dict, plain tensors) and the number
of heads, never the layer: the layer's forward pass is the answer, and it stays here (issue 27, item 4).
"""
import pytest
import torch
from torch import nn

from solutions.week7_attention.served.probes import generator, mha_layer
from solutions.week7_attention.suites.expect import expect_close, expect_pair, expect_shape
from solutions.week7_attention.suites.tolerances import TOL

pytestmark = pytest.mark.part("multihead")

N, T, D, H = 2, 5, 12, 3
DH = D // H  # 4; N, T, H, DH all distinct so a wrong transpose changes the shape


def _arange(*shape):
    """Every entry distinct (and exact in float32), so a mis-routed feature is visible."""
    size = 1
    for s in shape:
        size *= s
    return torch.arange(size, dtype=torch.float32).reshape(shape)


def _split_by_rule(x, heads):
    width = x.size(-1) // heads
    return torch.stack([x[..., h * width:(h + 1) * width] for h in range(heads)], dim=1)  # (N, H, T, Dh)


@pytest.mark.points(2)
def test_split_shape(student):
    """split_heads returns (N, H, T, D // H)"""
    x = torch.randn(N, T, D, generator=generator(1))
    expect_shape(student.split_heads(x, H), (N, H, T, DH), f"split_heads(x of shape {(N, T, D)}, heads={H})",
                 "Reshape to (N, T, H, Dh), then swap the T and H dims.")


@pytest.mark.points(3)
def test_split_routing(student):
    """split_heads sends features h*Dh..(h+1)*Dh-1 of each position to head h"""
    x = _arange(N, T, D)
    got = expect_shape(student.split_heads(x, H), (N, H, T, DH), f"split_heads(x of shape {(N, T, D)}, heads={H})")
    expected = _split_by_rule(x, H)
    expect_close(got, expected, "split_heads(x)", why=lambda i: (
        f"should be feature {i[1] * DH + i[3]} of position {i[2]}; x[n, t, d] = {T * D}n + {D}t + d here"),
        hint="x.view(N, H, T, Dh) mixes positions; reshape to (N, T, H, Dh) and transpose(1, 2).")


@pytest.mark.points(2)
def test_merge(student):
    """merge_heads puts head h back at features h*Dh..(h+1)*Dh-1"""
    heads = _arange(N, H, T, DH)
    what = f"merge_heads(x of shape {(N, H, T, DH)})"
    got = expect_shape(student.merge_heads(heads), (N, T, D), what, "The result is (N, T, H * Dh).")
    expected = torch.cat([heads[:, h] for h in range(H)], dim=-1)
    expect_close(got, expected, what, why=lambda i: f"should come from head {i[2] // DH}, position {i[1]}",
                 hint="transpose(1, 2) back to (N, T, H, Dh) before reshaping.")


@pytest.mark.points(1)
def test_round_trip(student):
    """merge_heads(split_heads(x)) == x"""
    x = _arange(N, T, D)
    heads = expect_shape(student.split_heads(x, H), (N, H, T, DH), "split_heads(x)")
    expect_close(student.merge_heads(heads), x, "merge_heads(split_heads(x))",
                 hint="merge_heads must undo split_heads exactly.")


def _causal(size):
    return nn.Transformer.generate_square_subsequent_mask(size) < 0  # True = blocked, from PyTorch


@pytest.mark.points(2)
@pytest.mark.parametrize("masked", [False, True], ids=["no mask", "causal mask"])
@pytest.mark.parametrize("width, heads, length", [(12, 3, 5), (16, 2, 7)], ids=["D=12,H=3", "D=16,H=2"])
def test_self_attention(student, width, heads, length, masked):
    """multi_head_self_attention matches nn.MultiheadAttention (output and per-head weights)"""
    mha = mha_layer(width, heads, width + heads)
    params = {name: value.detach().clone() for name, value in mha.state_dict().items()}  # a plain dict of tensors
    x = torch.randn(N, length, width, generator=generator(width))
    blocked = _causal(length) if masked else None
    with torch.no_grad():
        expected, expected_w = mha(x, x, x, attn_mask=blocked, average_attn_weights=False)
    out, weights = expect_pair(student.multi_head_self_attention(x, params, heads, blocked),
                               "multi_head_self_attention")
    expect_shape(weights, (N, heads, length, length), "weights", "Return the per-head weights (N, H, T, T).")
    expect_close(weights, expected_w, "weights", TOL["module"],
                 why=lambda i: "future key (blocked)" if masked and i[3] > i[2] else None,
                 hint="Use in_proj_weight/in_proj_bias rows [queries; keys; values] and scale by sqrt(D // H).")
    expect_shape(out, (N, length, width), "output")
    expect_close(out, expected, "output", TOL["module"],
                 hint='Finish with merge_heads and then the output projection, params["out_proj.weight"] and '
                 'params["out_proj.bias"].')
