"""The optimizer the grader trains the lab with (the reference run and each student's run)."""
import torch


class EagerAdamW(torch.optim.AdamW):
    """torch.optim.AdamW, the same steps bit for bit, without torch.compile's guards.

    AdamW's constructor, zero_grad and step are wrapped so that torch.compile leaves
    them alone, and the wrappers import torch._dynamo on first use: ~1 s of CPU in a
    cold grade, for a compiler the grader never runs. Here the wrapped functions are
    called directly (``__wrapped__``), and step keeps what its wrapper does in eager
    mode: no autograd graph for the update. tests/test_lab.py holds this equal to
    torch.optim.AdamW on the lab's smoke run and checks that torch._dynamo stays unloaded.
    """

    add_param_group = torch.optim.Optimizer.add_param_group.__wrapped__  # type: ignore[attr-defined]
    zero_grad = torch.optim.Optimizer.zero_grad.__wrapped__  # type: ignore[attr-defined]

    def step(self, closure=None):
        with torch.no_grad():  # _use_grad_for_differentiable, for differentiable=False
            return torch.optim.AdamW.step.__wrapped__(self, closure)
