"""The lab model a student's function receives: a real TinyTransformer whose forward pass runs in the grader.

The grader keeps its lab models: their masks are what the leakage checks vary, and the
train/eval flags of every forward pass are what the checks observe. The worker gets a
*replica*: an instance of the public lab's TinyTransformer holding the grader's weights,
buffers and train/eval flags, so that whatever a function does with a model in plain
PyTorch it can do here, with the same result: modules(), named_parameters(),
``next(model.parameters()).device``, state_dict() / load_state_dict(), to(), apply(),
requires_grad_(), ``module.training = ...`` on any submodule, ``copy.deepcopy(model)``,
``model.forward(tokens)``, ``model.encoder.layers[0]``, calling a submodule itself.

Only the root's forward pass is the grader's. It sends the tokens, the train/eval flag of
every module and, when they differ from what the grader sent, the weights; the grader
runs its own model with those flags and weights (so the mode of each pass is what it ran,
not what the worker says it ran) and the logits come back. When the call ends, the flags
of each model the function was handed (the caller's object, not a copy) go back with the
reply, and the grader's model takes them: that is "the mode was restored". A worker that
sends other flags has switched the grader's model, as ``model.train()`` would.

What cannot be served, each with a plain message (docs/security.md lists them):

* ``model.mask_fn``: the mask stays with the grader (calling it raises MASK_KEPT);
* forward hooks on submodules: the pass runs in the grader, so they would never fire;
* gradients from the logits back to the weights: backward raises NO_GRADIENTS;
* a model whose modules were added or removed (STRUCTURE_CHANGED).
"""
import torch
from torch import nn

from autograder.sandbox.wire import protocol

MASK_KEPT = ("the lab model's mask stays with the grader while grading (the hidden checks vary it): run the "
             "whole model, model(tokens), and compare its outputs")
HOOKS = ("forward hooks on the lab model's submodules ({names}) cannot run while grading: the forward pass runs "
         "in the grader. Hooks on the model itself work; or compare the model's outputs")
NO_GRADIENTS = ("gradients through the lab model are not available while grading: its forward pass runs in the "
                "grader. Compare outputs instead (for example under torch.no_grad())")
STRUCTURE_CHANGED = ("the lab model's modules were added or removed, so the grader's copy of it cannot follow; "
                     "change a copy of the model, or its weights, instead")
EARLIER_CALL = "this lab model was handed to an earlier call; use the model your function was given"


def _mask_kept_by_grader(T):
    raise RuntimeError(MASK_KEPT)


def fresh_copy(prototype, state, prefix="", cls=None):
    """A new module shaped like ``prototype``, holding its own copies of the tensors in ``state``.

    Every submodule is a new object with its own parameters and buffers (cloned from
    ``state``, a state_dict of the prototype's shape, dtypes as given), its own hook and
    bookkeeping containers and its own train/eval flag; the rest (sizes, flags, the mask
    function) is shared, as nothing changes it. What copy.deepcopy + load_state_dict gives,
    10x cheaper (0.2 ms instead of 2 ms). ``cls``: the root's class, if not the prototype's.
    """
    cls = cls or prototype.__class__
    module = cls.__new__(cls)
    attributes = {key: value.copy() if isinstance(value, (dict, set, list)) else value
                  for key, value in vars(prototype).items()}
    attributes["_parameters"] = {
        name: None if p is None else nn.Parameter(state[prefix + name].detach().clone(), p.requires_grad)
        for name, p in prototype._parameters.items()}
    attributes["_buffers"] = {
        name: None if b is None else (state[prefix + name] if prefix + name in state else b).detach().clone()
        for name, b in prototype._buffers.items()}
    attributes["_modules"] = {name: None if child is None else fresh_copy(child, state, f"{prefix}{name}.")
                              for name, child in prototype._modules.items()}
    vars(module).update(attributes)
    return module


def mode_vector(model):
    """The train/eval flag of every module, in modules() order (the same order on both sides)."""
    return [m.training for m in model.modules()]


def set_modes(model, modes):
    for module, mode in zip(model.modules(), modes):
        module.training = bool(mode)


class _GraderLogits(torch.autograd.Function):
    """The logits, made to depend on the weights as in PyTorch (requires_grad, .numpy() refusing); backward
    says why it cannot run."""

    @staticmethod
    def forward(ctx, logits, *weights):
        return logits.clone()

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(NO_GRADIENTS)


def _same_state(state, sent):
    if state.keys() != sent.keys():
        return False
    for name, value in state.items():
        original = sent[name]
        if value.dtype != original.dtype or value.shape != original.shape or not torch.equal(value, original):
            return False
    return True


class Replicas:
    """The worker's lab-model replicas: one per model argument of a call, served over the worker's channel."""

    def __init__(self, channel, lab):
        self.channel, self.lab = channel, lab
        self.prototypes = {}  # dropout -> a TinyTransformer built once (never handed out)
        self.sent = {}  # handle -> (state as the grader sent it, number of modules): this call's models
        self.handed = {}  # handle -> the replica the function was handed (its flags go back with the reply)
        replicas = self

        class TinyTransformer(lab.TinyTransformer):
            __doc__ = lab.TinyTransformer.__doc__

            def forward(self, tokens):  # tokens (N, T) -> logits (N, T, VOCAB), computed by the grader
                return replicas.forward(self, tokens)

        TinyTransformer.__module__ = lab.TinyTransformer.__module__
        self.cls = TinyTransformer

    def prototype(self, dropout):
        if dropout not in self.prototypes:
            with torch.random.fork_rng(devices=[]):  # the notebook's random draws are not the replica's business
                self.prototypes[dropout] = self.lab.TinyTransformer(
                    torch.zeros(self.lab.MAX_POSITIONS, self.lab.WIDTH), _mask_kept_by_grader, dropout=dropout)
        return self.prototypes[dropout]

    def begin_call(self):
        self.sent.clear()
        self.handed.clear()

    def replica(self, spec):
        """wire.RemoteModel -> the live model the student's function receives."""
        model = fresh_copy(self.prototype(spec.dropout), spec.state, cls=self.cls)
        model._grader_handle = spec.handle
        set_modes(model, spec.modes)
        self.sent[spec.handle] = (spec.state, len(spec.modes))
        self.handed[spec.handle] = model
        return model

    def forward(self, model, tokens):
        handle = vars(model).get("_grader_handle")
        if handle not in self.sent:
            raise RuntimeError(EARLIER_CALL)
        sent, count = self.sent[handle]
        modules = list(model.named_modules())
        if len(modules) != count:
            raise RuntimeError(STRUCTURE_CHANGED)
        hooked = [name for name, m in modules if name and (m._forward_hooks or m._forward_pre_hooks)]
        if nn.modules.module._global_forward_hooks or nn.modules.module._global_forward_pre_hooks:
            hooked.insert(0, "global hooks")
        if hooked:
            raise RuntimeError(HOOKS.format(names=", ".join(hooked[:3])))
        state = model.state_dict()
        changed = None if _same_state(state, sent) else {name: value.detach() for name, value in state.items()}
        self.channel.send(protocol.to_wire(protocol.ModelOp(handle, "forward", tokens,
                                                            [m.training for _, m in modules], changed)))
        result = protocol.parse(self.channel.receive(), [protocol.ModelResult])
        if not result.ok:
            raise RuntimeError(result.error)
        weights = [p for p in model.parameters() if p.requires_grad]
        if torch.is_grad_enabled() and weights and isinstance(result.value, torch.Tensor):
            return _GraderLogits.apply(result.value, *weights)
        return result.value

    def end_call(self):
        """{handle: the flags of the model the function was handed, or None if its modules changed}."""
        report = {str(handle): mode_vector(model) if len(list(model.modules())) == self.sent[handle][1] else None
                  for handle, model in self.handed.items()}
        self.begin_call()
        return report
