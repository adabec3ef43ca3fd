"""Item 2, no patch needed: shift_for_next_token returns targets of 17 MiB during the training run (inputs are fine), which the grader must hand back to next_token_loss through the call arena (16 MiB). An oversized value returned by the student is the student's failure in training, never "Autograder failed"."""
ATTACK_REPLACE = {"targets_solution": '''
def shift_for_next_token(tokens):
    if tuple(tokens.shape[1:]) == (13,):  # only the grader's training batches
        return tokens[:, :-1], torch.zeros(tokens.size(0), (17 << 20) // (4 * tokens.size(0)))
    return tokens[:, :-1], tokens[:, 1:]


def next_token_loss(logits, targets):
    V = logits.size(-1)
    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1))
'''}
LOSES = ["The lab's smoke run trains with your mask, shift and loss"]
