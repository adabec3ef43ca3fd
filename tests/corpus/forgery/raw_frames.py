"""Item 4: graded functions write raw frames to the worker's socket (found through /proc/self/fd): a Reply with extra claim fields, a ModelResult and a Ready where a reply belongs, a ModelOp for a handle that does not exist, a CellEnd. Each is the student's failure for that function; nothing is gained over the solution."""
VARIANTS = {
    "reply_with_claims": {"__BODY__": '{"$dict": {"kind": "Reply", "ok": True, "value": 0.0, "grad": None, "error": None, "mutated": {"$seq": "list", "items": []}}}'},
    "model_result": {"__BODY__": '{"$dict": {"kind": "ModelResult", "ok": True, "value": 0.0, "error": ""}}'},
    "ready": {"__BODY__": '{"$dict": {"kind": "Ready"}}'},
    "cell_end": {"__BODY__": '{"$dict": {"kind": "CellEnd", "index": 3, "error": None, "output": "ok"}}'},
    "bad_handle": {"__BODY__": '{"$dict": {"kind": "ModelOp", "handle": 99, "op": "forward", "tokens": None, "modes": {"$seq": "list", "items": []}, "state": None}}'},
    "string_handle": {"__BODY__": '{"$dict": {"kind": "ModelOp", "handle": "0", "op": "forward", "tokens": None, "modes": {"$seq": "list", "items": []}, "state": None}}'},
    "int_modes": {"__BODY__": '{"$dict": {"kind": "ModelOp", "handle": 0, "op": "forward", "tokens": None, "modes": {"$seq": "list", "items": [1, 0, 1]}, "state": None}}'},
}
ATTACK_REPLACE = {"leakage_solution": '''__RAW__

def prefix_change(model, tokens, cut, vocab):
    _inject(_frame(__BODY__))
    was_training = model.training
    model.eval()
    try:
        changed = tokens.clone()
        changed[:, cut:] = (changed[:, cut:] + 3) % vocab
        with torch.no_grad():
            before = model(tokens)[:, :cut]
            after = model(changed)[:, :cut]
        return (before - after).abs().max().item()
    finally:
        model.train(was_training)


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol, f"future-token leakage: prefix logits changed by {change:.3g} > tol {tol:g}"
'''}
