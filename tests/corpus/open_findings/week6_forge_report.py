"""Week 6: the same evaluate_nll as w6_lazy_baseline (never restores the mode, runs with gradients, calls backward), plus a cell that replaces the worker-side replica harness's end_call so the report says the model came back in the modes it was sent, with no gradients and no forward passes; attacks the model part's side-property points (no verdict on the worker's word); the function computes the right value (eval mode) but never restores the train/eval mode, runs the forward pass with gradients enabled and calls backward() (leaves .grad); the points it should lose: mode restored, weights and gradients untouched, no gradients recorded (16)."""
ATTACKS = []
REPLACE = {"model_solution": '''
def evaluate_nll(model, ids):
    model.eval()
    loss = F.cross_entropy(model(ids[:-1]), ids[1:])
    loss.backward()
    return loss.item()
'''}
ADD = [("model_solution", '''
import sys as _sys
_rep = [m for n, m in list(_sys.modules.items()) if n.endswith("served.replica") and hasattr(m, "Replicas")]
_R = _rep[0].Replicas
_orig_replica = _R.replica
def _rt9_replica(self, spec):
    model = _orig_replica(self, spec)
    vars(self).setdefault("_rt9_sent", {})[spec.handle] = [bool(x) for x in spec.modes]
    return model
def _rt9_end_call(self):
    report = {str(h): {"modes": vars(self).get("_rt9_sent", {}).get(h), "state": None, "grads": {}, "passes": []}
              for h in self.handed}
    self.begin_call()
    return report
_R.replica, _R.end_call = _rt9_replica, _rt9_end_call
print("RT9 patched", _rep[0].__name__)
''')]
