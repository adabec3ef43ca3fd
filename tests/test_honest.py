"""Honest idioms get full marks: each is first shown right in plain PyTorch, then graded through every flow.

The corpus (tests/corpus/honest.py, and honest_fresh.py written by a helper from the student
notebook alone) holds correct ways to write prefix_change, assert_no_future_leakage,
shift_for_next_token and next_token_loss. Here each idiom runs in this process on real lab
models and tensors, with the reference beside it (the oracle: PyTorch's own modules and
F.cross_entropy, not the grader); then the corpus notebooks go through `grade-all`, `grade`
and the unzipped Gradescope autograder (the nbgrader flow grades them in
tests/test_nbgrader_flow.py, in its one course run), and every part must score in full.
"""
import copy
import json
import math
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy  # noqa: F401 - idioms import it; fail here, not inside an idiom, if it is missing
import pytest
import torch
from torch import nn
from torch.nn import functional as F

import solutions.reference as reference
from autograder.assignment import ROOT
from solutions.week7_attention.served.probes import lab, lab_model
from autograder.engine.student import LocalTransport
from solutions.week7_attention.served.replica import mode_vector
from solutions.week7_attention.suites.tolerances import TOL
from flows.shared import by_part, cli_results, course
from flows.submissions import honest_names, honest_submissions
from tests.corpus.honest import corpus
from autograder.engine.catalog import part_points
from tests.points import total

IDIOMS = [idiom for found in corpus().values() for idiom in found]
pytestmark = pytest.mark.leakage


def namespace(idiom):
    """The notebook's namespace as the idiom's cell sees it: setup imports, the lab, the other answers."""
    ns = {"torch": torch, "nn": nn, "F": F, "math": math, "copy": copy, "__name__": "__main__"}
    ns.update({k: v for k, v in vars(lab()).items() if not k.startswith("__")})
    ns.update({k: v for k, v in vars(reference).items() if not k.startswith("__")})
    exec(compile(idiom.source, f"<idiom {idiom.name}>", "exec"), ns)  # noqa: S102 - the corpus, our own text
    return ns


def _tokens(seed, n=2, t=10):
    return torch.randint(8, (n, t), generator=torch.Generator().manual_seed(seed))


def _close(a, b, tol):
    return abs(float(a) - float(b)) <= tol.atol + tol.rtol * abs(float(b))


def check_prefix_change(ns):
    """Same value as the reference on causal, leaky, one-step and dropout models (handed over in train mode:
    the eval-mode value); input and every module's flag kept."""
    mine, ref = LocalTransport(ns), LocalTransport(vars(reference))
    cases = [("causal", 0.0, False), ("none", 0.0, False), ("one_step", 0.0, True), ("none", 0.2, True),
             ("causal", 0.2, False)]
    for n, (mask, dropout, training) in enumerate(cases):
        for cut in (5, 3, 8):
            tokens = _tokens(n)
            model = lab_model(mask, n, dropout=dropout, training=training)
            before = mode_vector(model)
            got = mine.call("prefix_change", [model, tokens, cut, 8], {})
            assert got.ok, got.error
            expected = ref.call("prefix_change", [lab_model(mask, n, dropout=dropout, training=training),
                                                  _tokens(n), cut, 8], {}).value
            assert isinstance(float(got.value), float)
            assert _close(got.value, expected, TOL["leak_match"]), (mask, dropout, cut, got.value, expected)
            assert got.mutated == [] and torch.equal(tokens, _tokens(n)), "tokens changed"
            assert mode_vector(model) == before, f"flags not restored on {mask}/{dropout}"
            # model.forward(x) runs no hooks, so passes may go unrecorded here; with dropout on, the value
            # above would not have matched the eval-mode reference.
            assert not any(got.forward_modes), "a forward pass ran with dropout on"


def check_assert_no_future_leakage(ns):
    """Passes causal models, raises AssertionError stating a number on leaky ones, follows tol."""
    fn = ns["assert_no_future_leakage"]
    for n in range(3):
        fn(lab_model("causal", n), _tokens(n), 5, 8)
        for mask in ("none", "one_step"):
            with pytest.raises(AssertionError) as raised:
                fn(lab_model(mask, n), _tokens(n), 5, 8)
            assert any(ch.isdigit() for ch in str(raised.value)), f"no number in {raised.value!r}"
    change = reference.prefix_change(lab_model("none", 11), _tokens(11), 5, 8)
    factor = TOL["tol_probe_factor"].atol
    fn(lab_model("none", 11), _tokens(11), 5, 8, tol=change * factor)
    with pytest.raises(AssertionError):
        fn(lab_model("none", 11), _tokens(11), 5, 8, tol=change / factor)


def check_shift_for_next_token(ns):
    fn = ns["shift_for_next_token"]
    for tokens in (torch.arange(15).reshape(3, 5), torch.arange(2).reshape(1, 2),
                   torch.randint(8, (2, 13), generator=torch.Generator().manual_seed(3)).int()):
        kept = tokens.clone()
        inputs, targets = fn(tokens)
        assert torch.equal(inputs, tokens[:, :-1]) and inputs.dtype == tokens.dtype
        assert torch.equal(targets, tokens[:, 1:]) and targets.dtype == tokens.dtype
        assert torch.equal(tokens, kept)


def check_next_token_loss(ns):
    fn = ns["next_token_loss"]
    g = torch.Generator().manual_seed(5)
    for shape, dtype in (((2, 5, 7), torch.float32), ((3, 4, 11), torch.float64), ((1, 1, 8), torch.float32)):
        logits = (torch.randn(*shape, generator=g) * 2).to(dtype)
        targets = torch.randint(shape[-1], shape[:2], generator=g)
        kept = logits.clone()
        mine = logits.clone().requires_grad_(True)
        theirs = logits.clone().requires_grad_(True)
        got = fn(mine, targets)
        expected = F.cross_entropy(theirs.reshape(-1, shape[-1]), targets.reshape(-1))
        assert got.shape == () and got.dtype == dtype
        torch.testing.assert_close(got, expected, atol=1e-6, rtol=1e-6)
        (gm,), (ge,) = torch.autograd.grad(got, mine), torch.autograd.grad(expected, theirs)
        torch.testing.assert_close(gm, ge, atol=1e-6, rtol=1e-5)
        assert torch.equal(logits, kept)


CHECKS = {"prefix_change": check_prefix_change, "assert_no_future_leakage": check_assert_no_future_leakage,
          "shift_for_next_token": check_shift_for_next_token, "next_token_loss": check_next_token_loss}


def test_every_function_has_fifteen_idioms():
    for function, found in corpus().items():
        assert len({i.name for i in found}) == len(found), f"two {function} idioms share a name"
        assert len(found) >= 15, f"{function}: only {len(found)} honest idioms"


@pytest.mark.parametrize("idiom", IDIOMS, ids=lambda i: f"{i.function}-{i.name}")
def test_idiom_is_right_in_plain_pytorch(idiom):
    """The oracle: the idiom itself, on real models and tensors, agrees with PyTorch and the reference."""
    torch.manual_seed(0)
    CHECKS[idiom.function](namespace(idiom))


# ---- through the graders ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    _, released, source = course(tmp_path_factory.mktemp("honest-course"))
    folder = tmp_path_factory.mktemp("honest") / "submissions"
    folder.mkdir()
    paths = {}
    for name, text in honest_submissions(released, source).items():
        paths[name] = folder / f"{name}.ipynb"
        paths[name].write_text(text)
    return paths


def assert_full_marks(results, name, flow):
    parts = by_part(results)
    short = {p: (parts.get(p, 0.0), full) for p, full in part_points().items() if parts.get(p, 0.0) < full}
    failed = [f"{t['name']}: {t.get('output', '')[:300]}" for t in results["tests"]
              if t.get("max_score") and t["score"] < t["max_score"]]
    k = int(name.rsplit("_", 1)[1])
    assert not short and float(results["score"]) == total(), (
        f"{flow}: {name} ({honest_names(k)}) lost points in {short}:\n" + "\n".join(failed[:5]))


@pytest.mark.slow
def test_full_marks_through_grade_all(honest, tmp_path):
    folder = next(iter(honest.values())).parent
    out = tmp_path / "grades.csv"
    run = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(folder), "--out", str(out),
                          "--jobs", "2"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    for name in honest:
        results = json.loads((out.parent / "grades_feedback" / name / "results.json").read_text())
        assert_full_marks(results, name, "grade-all")


@pytest.mark.slow
def test_full_marks_through_grade(honest, tmp_path):
    graded = cli_results(list(honest.values()), tmp_path)
    for name, path in honest.items():
        assert_full_marks(graded[path], name, "grade")


@pytest.mark.slow
def test_full_marks_through_gradescope(honest, tmp_path):
    from test_gradescope import NB, run_case

    from autograder.flows.gradescope import build as gs_build
    zip_path = gs_build.build(tmp_path / "zip" / "autograder.zip")
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(run_case, zip_path, tmp_path / name, {NB: path.read_text()})
                   for name, path in honest.items()}
        for name, future in futures.items():
            assert_full_marks(future.result()["results"], name, "gradescope")
