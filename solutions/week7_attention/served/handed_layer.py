"""The nn.MultiheadAttention week 7's multihead check hands to ``multi_head_self_attention``: built in the worker
from the grader's description (``autograder.sandbox.wire.values.ModuleSpec``, kind "mha") by ``build_module``, the
``Served.build_module`` of this assignment. The student's function reads its weights; its forward pass is the answer
the function is compared with, so calling it is refused. (A fresh copy loaded with its state_dict, or PyTorch's
functional form, is not: tests/corpus/open_findings/, issue 27.)
"""
from __future__ import annotations

from typing import Any

from torch import nn

from autograder.sandbox.wire.values import ModuleSpec


FORWARD_KEPT = ("calling the nn.MultiheadAttention you were handed (mha(...) or mha.forward(...)) is not allowed "
                "while grading: its output is the answer your function is compared with. Compute the layer by hand "
                "from mha.in_proj_weight, mha.in_proj_bias and mha.out_proj")


class GradedMultiheadAttention(nn.MultiheadAttention):
    """An nn.MultiheadAttention whose weights a function may read but whose forward pass it may not run.

    The multihead check compares a function with this very layer's forward pass: a function
    that called it would hand the expected answer back (8 of 16 points, issue 27). Everything
    else is PyTorch's: the weights, out_proj (an nn.Linear, which may be called), state_dict().
    """

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(FORWARD_KEPT)

    # PyTorch's own forward reads this flag on every path, and nothing a by-hand computation needs does:
    # once built, reading it raises, so nn.MultiheadAttention.forward(mha, ...) (the base class's forward,
    # past the override above) earns nothing either (it did: 8 of 16 points).
    @property
    def _qkv_same_embed_dim(self) -> bool:
        if self.__dict__.get("_forward_kept"):
            raise RuntimeError(FORWARD_KEPT)
        return self.__dict__["_qkv_same"]  # type: ignore[no-any-return]  # set by the setter below: a bool

    @_qkv_same_embed_dim.setter
    def _qkv_same_embed_dim(self, value: bool) -> None:
        self.__dict__["_qkv_same"] = value

    def keep_forward(self) -> "GradedMultiheadAttention":
        self.__dict__["_forward_kept"] = True
        return self


def build_module(spec: ModuleSpec) -> GradedMultiheadAttention:
    """ModuleSpec("mha", ...) -> an nn.MultiheadAttention holding the spec's weights, built only from PyTorch."""
    if spec.kind != "mha":
        raise ValueError(f"week 7 hands no module of kind {spec.kind!r}")
    module = GradedMultiheadAttention(spec.config["embed_dim"], spec.config["num_heads"], batch_first=True)
    if spec.state:
        module.load_state_dict(spec.state)
    return module.train(spec.training).keep_forward()
