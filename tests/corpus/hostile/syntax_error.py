"""A solution cell with a syntax error: breaks `targets` (its functions are never defined); every part but `training` (which uses them) keeps full points."""
ATTACKS = ["targets"]
KEEPS = ["softmax_read", "masks", "multihead", "positions", "leakage"]
EXPECT = ["SyntaxError"]
REPLACE = {"targets_solution": '''
def shift_for_next_token(tokens)
    return tokens[:, :-1], tokens[:, 1:]


def next_token_loss(logits, targets):
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
'''}
