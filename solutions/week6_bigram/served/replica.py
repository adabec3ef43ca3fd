"""The worker's side (plugin_api.ReplicaSet): a real BigramLM of the public lab, with the grader's weights and flags.

It runs its forward passes itself and records each (dropout active, gradients enabled); when the
call ends, each replica's flags, changed weights, gradients and passes go back with the reply.
"""
import torch

from .models import MAX_PASSES, dropout_active, mode_vector, set_modes


class Replicas:
    def __init__(self, channel, lab):
        self.lab = lab
        self.handed = {}  # handle -> (the replica the function was handed, the state it was sent)

        class BigramLM(lab.BigramLM):
            __doc__ = lab.BigramLM.__doc__

            def forward(self, ids):
                passes = vars(self).get("_passes")
                if isinstance(passes, list) and len(passes) < MAX_PASSES:
                    passes.append([dropout_active(self), torch.is_grad_enabled()])
                return super().forward(ids)

        BigramLM.__module__ = lab.BigramLM.__module__
        self.cls = BigramLM

    def begin_call(self):
        self.handed.clear()

    def replica(self, spec):
        vocab = int(spec.state["table.weight"].shape[0])
        with torch.random.fork_rng(devices=[]):  # the notebook's random draws are not the replica's business
            model = self.cls(vocab, dropout=spec.dropout)
        model.load_state_dict(spec.state)
        set_modes(model, spec.modes)
        model._passes = []
        self.handed[spec.handle] = (model, {k: v.clone() for k, v in spec.state.items()})
        return model

    def end_call(self):
        report = {}
        for handle, (model, sent) in self.handed.items():
            state = {name: value.detach().clone() for name, value in model.state_dict().items()}
            same = state.keys() == sent.keys() and all(
                state[k].shape == sent[k].shape and torch.equal(state[k], sent[k]) for k in sent)
            grads = {name: p.grad.detach().clone() for name, p in model.named_parameters()
                     if isinstance(p.grad, torch.Tensor)}
            passes = vars(model).get("_passes")
            report[str(handle)] = {"modes": mode_vector(model), "state": None if same else state, "grads": grads,
                                   "passes": list(passes) if isinstance(passes, list) else []}
        self.begin_call()
        return report
