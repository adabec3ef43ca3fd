"""leakage (issue 21's red team): an honest prefix_change that also sends the grader a float64 copy of the model with every weight scaled to a denormal, and asks for seven 128 x 64 passes of it per call: forward passes run in the grading process, outside the worker's one-core budget, and denormals made each ~30x slower (114 s of the grader's CPU for one notebook). Denormals are now flushed to zero there, and the grader's time running lab models is bounded per submission (Limits.model_seconds)."""
REPLACE = {"leakage_solution": '''
import copy as _copy


def _burn(model):
    try:
        twin = _copy.deepcopy(model).double().eval()
        with torch.no_grad():
            for name, p in twin.named_parameters():
                if p.dim() > 1 and "embedding" not in name:
                    p.mul_(1e-310)
        tokens = torch.zeros(128, 64, dtype=torch.long)
        for _ in range(7):  # 7 * 8192 tokens, under the 65,536 a call may ask for
            twin(tokens)
    except Exception:
        pass


def prefix_change(model, tokens, cut, vocab):
    _burn(model)
    was_training = model.training
    model.eval()
    try:
        changed = tokens.clone()
        changed[:, cut:] = (changed[:, cut:] + 3) % vocab
        with torch.no_grad():
            return (model(tokens)[:, :cut] - model(changed)[:, :cut]).abs().max().item()
    finally:
        model.train(was_training)


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol, f"future-token leakage: prefix logits changed by {change:.3g} > tol {tol:g}"
'''}
