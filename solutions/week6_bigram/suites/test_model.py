"""model: evaluate_nll receives a BigramLM it must leave as it found it.

The model stays in the grader; the worker's replica reports its flags, weights, gradients and forward
passes back (solutions/week6_bigram/served). The value is checked against PyTorch's F.cross_entropy of
the model's table in float64; the side properties (mode restored, weights and gradients untouched, no
gradients recorded) earn their points only on a call that also returned the right value: a stub that
returns a constant leaves the model alone too.
"""
import pytest
import torch
from torch.nn import functional as F

from solutions.week6_bigram import lab
from solutions.week6_bigram.served import dropout_active, generator, mode_vector
from solutions.week6_bigram.suites.expect import expect, expect_close, expect_float
from solutions.week6_bigram.suites.tolerances import TOL

pytestmark = pytest.mark.part("model")

V, T = 11, 31  # the model's vocabulary and the length of the ids: distinct, so (V, T) mix-ups show
DROPOUT = 0.5  # large, so a pass in train mode moves the loss far beyond the tolerance


class Watched(lab.BigramLM):
    """The lab's model, recording each forward pass run in this process as (dropout active, gradients enabled).

    Passes run in a worker's replica are appended by the grader's model server when the call ends."""

    def __init__(self, vocab_size, dropout=0.0):
        super().__init__(vocab_size, dropout)
        self.passes = []

    def forward(self, ids):
        self.passes.append((dropout_active(self), torch.is_grad_enabled()))
        return super().forward(ids)


def _model(probe, training, vocab=V):
    with torch.random.fork_rng(devices=[]):
        model = Watched(vocab, dropout=DROPOUT)
    with torch.no_grad():
        model.table.weight.copy_(torch.randn(vocab, vocab, generator=generator(probe)) * 1.5)
    return model.train(training)


def _ids(probe, vocab=V, length=T):
    return torch.randint(vocab, (length,), generator=generator(probe))


def _truth(model, ids):
    """PyTorch's mean next-token cross-entropy of the model's table, in float64 (eval mode: no dropout)."""
    return F.cross_entropy(model.table.weight.detach().double()[ids[:-1]], ids[1:]).item()


def _number(value):
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return float(value.reshape(()))
    expect(isinstance(value, (float, int)) and not isinstance(value, bool),
           f"evaluate_nll should return a number, but returned {value!r:.40}.")
    return float(value)


def _evaluated(student, probe, training):
    """(model, its flags before, its weights before, the call's result), the value checked first."""
    model, ids = _model(probe, training), _ids(probe + 100)
    before = (tuple(mode_vector(model)), {k: v.clone() for k, v in model.state_dict().items()})
    truth = _truth(model, ids)
    result = student.call("evaluate_nll", model, ids)
    hint = ("Switch the model to eval mode (model.eval()) before the forward pass: dropout must be off."
            if training else "Average F.cross_entropy(model(ids[:-1]), ids[1:]) over the len(ids) - 1 positions.")
    expect_close(_number(result.value), truth, f"evaluate_nll on a model in {'train' if training else 'eval'} mode",
                 TOL["model_nll"], hint=hint)
    return model, before, result


@pytest.mark.points(8)
def test_value_eval_model(student):
    """evaluate_nll of a model in eval mode equals F.cross_entropy of its next-token logits"""
    _evaluated(student, 1, training=False)


@pytest.mark.points(8)
def test_value_train_model(student):
    """evaluate_nll of a model in train mode is computed with dropout off (eval mode)"""
    _evaluated(student, 2, training=True)


@pytest.mark.points(6)
def test_train_mode_restored(student):
    """A model handed over in train mode is handed back in train mode"""
    model, (modes, _), result = _evaluated(student, 3, training=True)
    expect(result.modes and tuple(result.modes[0]) == modes,
           "evaluate_nll left the model in eval mode; it was in train mode when your function received it.",
           "Remember model.training before model.eval(), and call model.train(that) before returning.")


@pytest.mark.points(4)
def test_eval_mode_kept(student):
    """A model handed over in eval mode stays in eval mode"""
    model, (modes, _), result = _evaluated(student, 4, training=False)
    expect(result.modes and tuple(result.modes[0]) == modes,
           "evaluate_nll left the model in train mode; it was in eval mode when your function received it.",
           "Restore the mode the model had (model.train(was_training)), rather than always calling model.train().")


@pytest.mark.points(6)
def test_weights_and_gradients_untouched(student):
    """evaluate_nll changes no weight and leaves no gradient"""
    model, (_, weights), result = _evaluated(student, 5, training=True)
    for name, value in model.state_dict().items():
        expect(torch.equal(value, weights[name]), f"evaluate_nll changed the model's {name}; an evaluation must "
                                                  "not train or edit the model.")
    graded = [name for name, p in model.named_parameters() if p.grad is not None]
    expect(not graded, f"evaluate_nll left gradients in the model ({', '.join(graded)}.grad); evaluate under "
                       "torch.no_grad() and never call backward().")


@pytest.mark.points(4)
def test_no_gradients_recorded(student):
    """evaluate_nll runs the model under torch.no_grad() and without dropout (each forward pass it ran)"""
    model, _, result = _evaluated(student, 6, training=True)
    expect(not any(dropout for dropout, _ in model.passes), "evaluate_nll ran the model with dropout active.",
           "model.eval() before the forward pass.")
    expect(not any(grad for _, grad in model.passes),
           "evaluate_nll ran the model with gradients enabled; wrap the forward pass in `with torch.no_grad():`.")


@pytest.mark.points(2)
def test_returns_float(student):
    """evaluate_nll returns a Python float"""
    model, ids = _model(7, False), _ids(107)
    truth = _truth(model, ids)  # before the call: a function that changes the weights is judged on its own check
    got = expect_float(student.evaluate_nll(model, ids), "evaluate_nll")
    expect_close(got, truth, "evaluate_nll", TOL["model_nll"])


@pytest.mark.points(2)
def test_other_vocabulary(student):
    """evaluate_nll works for another vocabulary and length"""
    model, ids = _model(8, False, vocab=5), _ids(108, vocab=5, length=12)
    truth = _truth(model, ids)
    expect_close(_number(student.evaluate_nll(model, ids)), truth, "evaluate_nll on V=5, T=12", TOL["model_nll"])
