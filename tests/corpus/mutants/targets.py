"""targets mutants. The lab's training runs with the student's shift and loss, so each may
also cost points in training."""
from tests.corpus import Mutant

TRAINING = ("training",)


def _m(name, function, old, new, why):
    return Mutant(name, "targets", function, old, new, why, TRAINING)


MUTANTS = [
    _m("shift_reversed", "shift_for_next_token",
       "return tokens[:, :-1], tokens[:, 1:]", "return tokens[:, 1:], tokens[:, :-1]",
       "swaps inputs and targets: each position predicts the token before it"),
    _m("shift_targets_not_shifted", "shift_for_next_token",
       "return tokens[:, :-1], tokens[:, 1:]", "return tokens[:, :-1], tokens[:, :-1]",
       "targets = tokens[:, :-1]: each position predicts itself"),
    _m("shift_inputs_off_by_one", "shift_for_next_token",
       "return tokens[:, :-1], tokens[:, 1:]", "return tokens[:, 1:], tokens[:, 1:]",
       "inputs = tokens[:, 1:]: inputs and targets are the same tokens"),
    _m("loss_sum", "next_token_loss",
       "targets.reshape(-1))", 'targets.reshape(-1), reduction="sum")',
       "sums the cross-entropy over positions instead of averaging"),
    _m("loss_wrong_transpose", "next_token_loss",
       "logits.reshape(-1, V)", "logits.transpose(0, 1).reshape(-1, V)",
       "flattens the logits in (T, N) order and the targets in (N, T) order"),
    _m("loss_hardcoded_vocab", "next_token_loss",
       "V = logits.size(-1)", "V = 7",
       "hard-codes the vocabulary size"),
]
