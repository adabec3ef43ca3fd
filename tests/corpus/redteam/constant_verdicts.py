"""leakage: prefix_change runs the model once in eval mode, restores its mode and returns 0.0; assert_no_future_leakage runs it once and never raises (red team round 3, F2: 90 against 84 without them, from "about 0 on a causal model", "ran in eval mode", "mode restored", "passes silently" and the training run's "your check accepts the trained model"). A property a constant also has counts only with the job done: no more points than the released stubs."""
REPLACE = {"leakage_solution": '''
def prefix_change(model, tokens, cut, vocab):
    was_training = model.training
    model.eval()
    model(tokens)  # run it once, compare nothing
    model.train(was_training)
    return 0.0


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    model(tokens)  # run it once, never raise
'''}
