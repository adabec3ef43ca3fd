"""Week 6: the same evaluate_nll as w6_grad_pass_baseline (forward pass with gradients enabled), which then empties the replica's record of its forward passes (vars(model)["_passes"].clear(), one line inside the function): attacks 'runs the model under torch.no_grad()' (4 points), which is read from the worker's record."""
ATTACKS = []
REPLACE = {"model_solution": '''
def evaluate_nll(model, ids):
    was = [(m, m.training) for m in model.modules()]
    model.eval()
    loss = F.cross_entropy(model(ids[:-1]), ids[1:])
    for m, t in was:
        m.training = t
    if isinstance(vars(model).get("_passes"), list):
        vars(model)["_passes"].clear()
    return loss.item()
'''}
