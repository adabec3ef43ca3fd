"""The lab's smoke run, trained here, in the grading process, with the student's mask, shift and loss.

The model, the optimizer and the data never leave the grader. The worker is asked only
what the student's functions return: causal_mask_blocked(T) once per length,
shift_for_next_token(batch) per batch, and next_token_loss(logits, targets) per batch
with its gradient with respect to the logits (taken by autograd in the worker; a
detached loss has none, a summed one is N*T times too large, and training shows it).
The trained weights are the grader's own, so no reply can claim a trained state.
"""
import time

import torch

from .eager_adamw import EagerAdamW
from .probes import lab
from .reference_runs import positions
from autograder.engine.faults import SubmissionFault


class TrainingFailed(SubmissionFault):
    """The run could not go on with what the student's functions returned; the message says why."""


class _StudentLoss(torch.autograd.Function):
    """A loss whose value and gradient (w.r.t. the logits) were computed by the student's function."""

    @staticmethod
    def forward(ctx, logits, value, gradient):
        ctx.save_for_backward(gradient)
        return value.clone()

    @staticmethod
    def backward(ctx, upstream):
        (gradient,) = ctx.saved_tensors
        return upstream * gradient, None, None


class StudentPieces:
    """mask_fn, shift_fn and loss_fn for lab.train_lab, each answered by the student's function."""

    def __init__(self, student, seconds):
        self.student, self.deadline = student, time.monotonic() + seconds
        self.masks = {}  # T -> the student's causal_mask_blocked(T), as data
        self.last_step = None  # (logits, targets, value) of the last training step's loss

    def _timeout(self) -> float:
        """What is left of the whole run; the worker session caps each call at Limits.call_seconds."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TrainingFailed("the training run ran past its time limit")
        return left

    def mask(self, T):
        if T not in self.masks:
            value = self.student.call("causal_mask_blocked", T, timeout=self._timeout()).value
            if value is not None and not (isinstance(value, torch.Tensor) and tuple(value.shape) == (T, T)
                                          and (value.dtype == torch.bool or value.is_floating_point())):
                raise TrainingFailed(f"causal_mask_blocked({T}) should be a ({T}, {T}) bool tensor to mask the "
                                     "lab model with")
            self.masks[T] = value
        return self.masks[T]

    def shift(self, tokens):
        pair = self.student.call("shift_for_next_token", tokens, timeout=self._timeout()).value
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2
                and all(isinstance(t, torch.Tensor) for t in pair)):
            raise TrainingFailed("shift_for_next_token should return a pair of tensors (inputs, targets)")
        inputs, targets = pair
        length = lab().MAX_POSITIONS
        if (inputs.is_floating_point() or inputs.dtype == torch.bool or inputs.dim() != 2
                or not 1 <= inputs.size(1) <= length or inputs.size(0) != tokens.size(0)):
            raise TrainingFailed(f"shift_for_next_token's inputs should be token ids of shape (N, T - 1); got "
                                 f"{inputs.dtype} {tuple(inputs.shape)} for tokens of shape {tuple(tokens.shape)}")
        if inputs.numel() and (int(inputs.min()) < 0 or int(inputs.max()) >= lab().VOCAB):
            raise TrainingFailed(f"shift_for_next_token's inputs hold ids outside 0..{lab().VOCAB - 1}")
        return inputs.long(), targets

    def loss(self, logits, targets):
        if not logits.requires_grad:  # validation: the value only
            value = self.student.call("next_token_loss", logits.detach(), targets, timeout=self._timeout()).value
            return self._scalar(value)
        value, gradient = self.student.value_and_grad("next_token_loss", logits.detach(), targets,
                                                      timeout=self._timeout())
        value = self._scalar(value)
        self.last_step = (logits.detach().clone(), targets, float(value))
        if not (isinstance(gradient, torch.Tensor) and gradient.shape == logits.shape
                and gradient.is_floating_point()):
            raise TrainingFailed("next_token_loss's gradient with respect to the logits has the wrong shape")
        if not bool(torch.isfinite(gradient).all()):
            raise TrainingFailed("next_token_loss's gradient is not finite (nan or inf)")
        return _StudentLoss.apply(logits, value.to(logits.dtype), gradient.to(logits.dtype))

    @staticmethod
    def _scalar(value):
        if isinstance(value, torch.Tensor) and value.numel() == 1 and value.is_floating_point():
            return value.reshape(()).float()
        raise TrainingFailed("next_token_loss should return a float tensor holding one number (the mean loss)")

    def consistent(self):
        """The loss that training followed agrees with a plain call of next_token_loss on the same batch.

        Training asks for value and gradient together; the targets part asks for the value
        alone. A worker that answered the two differently would train with one function
        and be graded on another.
        """
        if self.last_step is None:
            return
        logits, targets, value = self.last_step
        again = self._scalar(self.student.call("next_token_loss", logits, targets, timeout=self._timeout()).value)
        if abs(float(again) - value) > 1e-6 * max(1.0, abs(value)):
            raise TrainingFailed(f"next_token_loss gave {float(again):.6g} when called directly, but {value:.6g} "
                                 "on the same batch during training")


def train_with_student(student, epochs, seconds):
    """(model with the validation-selected weights, its validation loss, the student's masks by length)."""
    pieces = StudentPieces(student, seconds)
    try:
        model, best_val = lab().train_lab(epochs, positions(), pieces.mask, pieces.shift, pieces.loss,
                                          optimizer=EagerAdamW)
    except FloatingPointError as err:
        raise TrainingFailed(str(err)) from None
    pieces.consistent()
    return model, best_val, pieces.masks
