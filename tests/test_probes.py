"""Probes drawn afresh per submission: same notebook, same probes; changed notebook, new probes;
and the reference keeps full marks whatever the draw (no check depends on a lucky seed)."""
import hashlib

import pytest
import torch

import solutions.reference as reference
from solutions.week7_attention.served import probes
from autograder.engine.catalog import catalog
from autograder.engine.plugin import run_suites
from autograder.engine.student import LocalTransport, Student

SECRET = b"a test secret of 32 bytes, fixed"


def _base(text, secret=SECRET):
    return probes.submission_base(secret, hashlib.sha256(text.encode()).hexdigest())


def test_same_notebook_same_base_changed_notebook_new_base():
    assert _base("notebook A") == _base("notebook A")
    assert _base("notebook A") != _base("notebook A ")  # one byte more
    assert _base("notebook A") != _base("notebook A", secret=b"another course's secret, 32 bytes")


def test_probes_follow_the_base():
    try:
        probes.use_submission(_base("one"))
        first = torch.randn(4, generator=probes.generator(1))
        again = torch.randn(4, generator=probes.generator(1))
        model_one = probes.lab_model("none", 2).state_dict()["head.weight"]
        probes.use_submission(_base("two"))
        second = torch.randn(4, generator=probes.generator(1))
        model_two = probes.lab_model("none", 2).state_dict()["head.weight"]
    finally:
        probes.use_submission(0)
    assert torch.equal(first, again)
    assert not torch.equal(first, second)
    assert not torch.equal(model_one, model_two)


@pytest.mark.slow
@pytest.mark.parametrize("draw", range(8))
def test_reference_full_marks_under_any_draw(draw):
    """The hidden suites against the reference, in-process, under 8 different submissions' probes."""
    try:
        probes.use_submission(_base(f"submission {draw}"))
        results = run_suites(Student(LocalTransport(vars(reference))))
    finally:
        probes.use_submission(0)
    failed = [f"{r.nodeid}: {r.message}" for r in results if r.status != "passed"]
    assert not failed, failed
    assert len(results) == len(catalog())


def test_no_template_is_forked_once_the_secret_is_loaded(tmp_path):
    """Workers inherit the memory of the process their template is forked from: never one holding the secret."""
    import subprocess
    import sys
    code = ("from autograder.engine import secret, template\n"
            "before = template.may_fork_template()\n"
            "secret.load()\n"
            "print(before, template.may_fork_template())\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "0", "AUTOGRADER_SECRET_FILE": str(tmp_path / "s.key"),
                              "PATH": "/usr/bin:/bin"})
    assert run.stdout.split() == ["True", "False"]


def test_a_recovered_probe_seed_gives_no_other():
    """Round 6: the multihead probe's weights give its 32-bit seed back (redteam/seed_oracle.py). With seeds
    base * c + n that gave every other probe (seed(41), the training verdict pool's order, was seed(15) + 26);
    now each probe's seed is a hash of (base, n): knowing one says nothing of another."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent / "corpus"))
    from redteam import seed_oracle
    low = (1 << 32) - 1
    gaps = set()
    try:
        for draw in range(12):
            probes.use_submission(_base(f"oracle {draw}"))
            module = probes.mha_layer(12, 3, 15)
            if draw < 2:  # the attack itself works against the grader's probes: the seed comes back
                assert seed_oracle.recover(module) == {probes.seed(15) & low}
            gaps.add((probes.seed(41) - probes.seed(15)) & low)
    finally:
        probes.use_submission(0)
    assert len(gaps) == 12, "probe seeds differ by a constant: one recovered seed gives the others"


def test_no_verdict_order_is_drawn_from_a_models_seed(monkeypatch):
    """A lab model's weights go to the worker (its replica), and a probe's seed can be read back from the weights
    it shuffled (the test above). So the order a verdict pool asks in must come from a probe number no model
    handed to the student is built from: the leakage suite's pool drew its order from probe 40, the seed of
    its own first model. Both suites that ask pools run here in-process against the reference."""
    import pytest as _pytest

    from solutions.week7_attention.served import probes as probe_module
    from solutions.week7_attention.suites import verdicts
    model_probes, order_probes = set(), set()
    real_weights, real_generator = probe_module._seeded_weights, verdicts.generator

    def weights(mask, probe_seed, dropout):
        model_probes.add(probe_seed)
        return real_weights(mask, probe_seed, dropout)

    def order(n):
        order_probes.add(probes.seed(n))
        return real_generator(n)

    monkeypatch.setattr(probe_module, "_seeded_weights", weights)
    monkeypatch.setattr(verdicts, "generator", order)
    from autograder.assignment import ROOT
    code = _pytest.main([str(ROOT / "solutions/week7_attention/suites/test_leakage.py"), "-q", "-p", "no:cacheprovider",
                         "--assert=plain", "-k", "assert"])
    assert code == 0
    assert model_probes and order_probes, "the suite asked no pool, or built no model"
    assert not model_probes & order_probes, "a verdict pool's order is drawn from a seed a model was built from"
