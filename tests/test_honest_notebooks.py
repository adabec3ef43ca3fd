"""Three whole honest notebooks (tests/corpus/honest_notebooks.py) score 100 / 100 through the real command.

Each style is first shown right in plain PyTorch, against PyTorch's own implementations (softmax,
scaled_dot_product_attention, nn.MultiheadAttention, generate_square_subsequent_mask, cross_entropy)
and a float64 position table, not against the grader or the reference. Then the complete notebook, as a
student hands it in (the committed student notebook with its answers filled and one extra cell), is
graded by `python -m autograder grade NOTEBOOK --out results.json`, and every part must be full.
"""
import json
import math
import os
import subprocess
import sys

import nbformat
import pytest
import torch
from torch import nn
from torch.nn import functional as F

from autograder import PARTS
from autograder.assignment import NOTEBOOK_FILE, ROOT
from autograder.engine.catalog import part_points
from tests.corpus.honest_notebooks import HONEST_NOTEBOOKS, honest_notebook
from tests.points import total

STYLES = [pytest.param(a, id=a.name) for a in HONEST_NOTEBOOKS]
GRADE_TIMEOUT = 900  # seconds for one notebook, PyTorch start-up included


def namespace(alternative) -> dict:
    """The notebook's setup imports with every solution cell of this style run in order."""
    ns = {"torch": torch, "nn": nn, "F": F, "math": math, "__name__": "__main__"}
    for part in PARTS:
        if part in alternative.cells:
            exec(compile(alternative.cells[part], f"<{alternative.name}:{part}>", "exec"), ns)  # noqa: S102 - our corpus
    return ns


def test_three_distinct_complete_styles():
    assert len({a.name for a in HONEST_NOTEBOOKS}) == len(HONEST_NOTEBOOKS) == 3
    for part in ("softmax_read", "masks", "multihead", "positions", "targets", "leakage"):
        sources = [a.cells[part] for a in HONEST_NOTEBOOKS]
        assert len(set(sources)) == len(sources), f"two styles share the {part} cell"


def _attention_checks(ns: dict, g: torch.Generator) -> None:
    for dtype, tol in ((torch.float32, 1e-5), (torch.float64, 1e-12)):
        s = torch.randn(3, 4, 7, generator=g, dtype=dtype) * 50
        for dim in (-1, 0):
            got = ns["stable_softmax"](s, dim=dim)
            assert got.dtype == dtype
            torch.testing.assert_close(got, F.softmax(s, dim), atol=tol, rtol=tol)
        dead = torch.full((2, 3), float("-inf"), dtype=dtype)
        assert torch.equal(ns["stable_softmax"](dead), torch.zeros_like(dead))
        # cross-attention with batch and head dims, a mask broadcast over heads, three temperatures
        q = torch.randn(2, 3, 5, 8, generator=g, dtype=dtype)
        k = torch.randn(2, 3, 6, 8, generator=g, dtype=dtype)
        v = torch.randn(2, 3, 6, 4, generator=g, dtype=dtype)
        blocked = torch.rand(2, 1, 5, 6, generator=g) < 0.4
        blocked[..., 0] = False
        for tau in (1.0, 0.5, 3.0):
            out, w = ns["attention_read"](q, k, v, blocked, temperature=tau)
            ref = F.scaled_dot_product_attention(q, k, v, attn_mask=~blocked, scale=1 / (math.sqrt(8) * tau))
            torch.testing.assert_close(out, ref, atol=tol, rtol=tol)
            assert (w[blocked.expand_as(w)] == 0).all()
        blocked[0, 0, 2] = True  # query 2 of batch 0 sees nothing: all-zero weights and output
        out, w = ns["attention_read"](q, k, v, blocked)
        assert torch.isfinite(w).all() and (w[0, :, 2] == 0).all() and (out[0, :, 2] == 0).all()


def _mask_and_head_checks(ns: dict, g: torch.Generator) -> None:
    for T in (1, 4, 9):
        expected = nn.Transformer.generate_square_subsequent_mask(T, dtype=torch.float64)
        assert torch.equal(ns["causal_mask_additive"](T, torch.float64), expected)
        assert torch.equal(ns["causal_mask_blocked"](T), ~ns["causal_mask_allowed"](T))
    # the SDPA mask in SDPA equals nn.MultiheadAttention given the causal and the padding mask
    lengths, T = torch.tensor([3, 6, 1]), 6
    mha = nn.MultiheadAttention(12, 3, batch_first=True).eval()
    x = torch.randn(3, T, 12, generator=g)
    ref, _ = mha(x, x, x, attn_mask=ns["causal_mask_blocked"](T),
                 key_padding_mask=ns["padding_mask_blocked"](lengths, T), average_attn_weights=False)
    qh, kh, vh = (ns["split_heads"](t, 3) for t in F.linear(x, mha.in_proj_weight, mha.in_proj_bias).chunk(3, -1))
    heads = F.scaled_dot_product_attention(qh, kh, vh, attn_mask=ns["sdpa_mask"](lengths, T))
    torch.testing.assert_close(mha.out_proj(ns["merge_heads"](heads)), ref)
    for dtype in (torch.float32, torch.float64):
        mha = nn.MultiheadAttention(16, 4, batch_first=True).to(dtype).eval()
        x = torch.randn(2, 7, 16, generator=g, dtype=dtype)
        for mask in (None, ns["causal_mask_blocked"](7)):
            out, w = ns["multi_head_self_attention"](x, mha.state_dict(), 4, mask)
            ref_out, ref_w = mha(x, x, x, attn_mask=mask, average_attn_weights=False)
            torch.testing.assert_close(out, ref_out)
            torch.testing.assert_close(w, ref_w)


def _position_target_leakage_checks(ns: dict, g: torch.Generator) -> None:
    length, width = 200, 64
    angle = torch.arange(length, dtype=torch.float64)[:, None] / 10000 ** (
        torch.arange(0, width, 2, dtype=torch.float64) / width)
    table = torch.stack([angle.sin(), angle.cos()], -1).reshape(length, width)
    pe = ns["sinusoidal_positions"](length, width)
    assert pe.dtype == torch.float32
    torch.testing.assert_close(pe.double(), table, atol=1e-4, rtol=0)  # float32 exp/log drifts ~1e-5 at 200
    tokens = torch.randint(8, (3, 6), generator=g)
    inputs, targets = ns["shift_for_next_token"](tokens)
    assert torch.equal(inputs, tokens[:, :-1]) and torch.equal(targets, tokens[:, 1:])
    logits = torch.randn(3, 5, 8, generator=g)
    torch.testing.assert_close(ns["next_token_loss"](logits, targets),
                               F.cross_entropy(logits.reshape(-1, 8), targets.reshape(-1)))
    # leakage on PyTorch's own encoder, with dropout that must be off during the measurement
    layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.3, batch_first=True)
    encoder, embed, head = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False), nn.Embedding(8, 16), \
        nn.Linear(16, 8)

    class Model(nn.Module):
        def __init__(self, causal: bool) -> None:
            super().__init__()
            self.embed, self.encoder, self.head, self.causal = embed, encoder, head, causal

        def forward(self, t: torch.Tensor) -> torch.Tensor:
            mask = nn.Transformer.generate_square_subsequent_mask(t.size(1)) if self.causal else None
            return self.head(self.encoder(self.embed(t), mask=mask, is_causal=self.causal))

    tokens = torch.randint(8, (2, 9), generator=g)
    kept = tokens.clone()
    for causal in (True, False):
        model = Model(causal).train()
        got = ns["prefix_change"](model, tokens, 4, 8)
        assert model.training and torch.equal(tokens, kept)
        with torch.no_grad():
            model.eval()
            changed = tokens.clone()
            changed[:, 4:] = (changed[:, 4:] + 3) % 8
            expected = (model(tokens) - model(changed))[:, :4].abs().max().item()
        assert isinstance(got, float) and math.isclose(got, expected, rel_tol=1e-6, abs_tol=1e-6)
        if causal:
            ns["assert_no_future_leakage"](model, tokens, 4, 8)
        else:
            with pytest.raises(AssertionError):
                ns["assert_no_future_leakage"](model, tokens, 4, 8)


@pytest.mark.parametrize("alternative", STYLES)
def test_style_is_right_in_plain_pytorch(alternative):
    """The oracle is PyTorch itself, not the grader."""
    ns, g = namespace(alternative), torch.Generator().manual_seed(1)
    torch.manual_seed(0)
    _attention_checks(ns, g)
    _mask_and_head_checks(ns, g)
    _position_target_leakage_checks(ns, g)


@pytest.mark.slow
@pytest.mark.parametrize("alternative", STYLES)
def test_scores_full_marks_through_grade(alternative, tmp_path):
    """The README's command on the file a student hands in, under its own name, alone in its folder."""
    notebook = tmp_path / "submission" / NOTEBOOK_FILE
    notebook.parent.mkdir()
    notebook.write_text(nbformat.writes(honest_notebook(alternative)) + "\n")
    out = tmp_path / "results.json"
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(notebook), "--out", str(out)],
                         cwd=ROOT, env=dict(os.environ, PYTHONHASHSEED="0"), capture_output=True, text=True,
                         timeout=GRADE_TIMEOUT)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    results = json.loads(out.read_text())
    parts: dict = {}
    for test in results["tests"]:
        (part,) = test["tags"]
        got, top = parts.get(part, (0.0, 0.0))
        parts[part] = (got + test["score"], top + test["max_score"])
    lost = [f"[{t['tags'][0]}] {t['name']}: {t.get('output', '')[:300]}" for t in results["tests"]
            if t["score"] < t["max_score"]]
    assert {p: top for p, (_, top) in parts.items()} == part_points(), "every part's tests must be reported"
    assert float(results["score"]) == total() and not lost, \
        f"{alternative.name} ({alternative.why}) scored {results['score']:g}:\n" + "\n".join(lost)
