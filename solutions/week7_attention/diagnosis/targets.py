"""targets: known wrong versions of shift_for_next_token and next_token_loss."""
import torch
from torch.nn import functional as F

from .core import Family, Misconception

SHIFT = " Re-read 7.6: inputs, targets = tokens[:, :-1], tokens[:, 1:]."

REVERSED = Family("shift_reversed", (
    "inputs and targets are swapped: position t is trained to predict the token BEFORE it, which it has "
    "already seen. The loss falls quickly and the model learns nothing usable for generation. The target of "
    "position t is the following token." + SHIFT))
NOT_SHIFTED = Family("shift_missing", (
    "the targets are not shifted relative to the inputs (both are the same tokens), so each position is "
    "trained to copy a token it can read: the loss goes to ~0 and the model cannot generate. Supervise each "
    "input position with the following token." + SHIFT))
KEEPS_LAST = Family("shift_keeps_last_token", (
    "the inputs keep the final token (tokens instead of tokens[:, :-1]): inputs and targets no longer have "
    "the same length, and the final token, which has no successor, is fed to the model. Drop one token per "
    "row on each side." + SHIFT))
SUMMED = Family("loss_not_averaged", (
    "the cross-entropy is summed (over every position, or over positions within each sequence) instead of "
    "averaged over all N·T pairs, so the loss, and every gradient step, is N·T (or T) times too large: it "
    "depends on the batch size and length, and a learning rate tuned for the mean diverges. Use the mean "
    "over every (sequence, position) pair: F.cross_entropy's default reduction on (N·T, V) and (N·T,)."))
SCRAMBLED = Family("loss_pairs_scrambled", (
    "logits and targets are flattened in different orders (one transposed, the other not), so position t of "
    "sequence n is scored against another position's target. Shapes still match, which hides the bug; the "
    "model is trained on shuffled labels. Flatten both the same way: logits.reshape(-1, V) and "
    "targets.reshape(-1) (7.6)."))
DETACHED = Family("loss_detached", (
    "the loss is cut off from the logits (.detach(), .item(), numpy, or a new tensor built from the value), so "
    "loss.backward() cannot reach the model: the value looks right but training never changes a weight. Keep "
    "the whole computation in PyTorch and return the tensor F.cross_entropy gives."))
NO_LOG_SOFTMAX = Family("loss_without_log_softmax", (
    "the raw logits are used as log-probabilities (F.nll_loss on logits, or a softmax before "
    "F.cross_entropy, which applies log-softmax itself). The value is not the cross-entropy and its gradient "
    "trains the wrong thing. F.cross_entropy takes raw logits: no softmax before it."))


def shift_reversed(tokens):
    return tokens[:, 1:], tokens[:, :-1]


def shift_targets_unshifted(tokens):
    return tokens[:, :-1], tokens[:, :-1]


def shift_inputs_shifted(tokens):
    return tokens[:, 1:], tokens[:, 1:]


def shift_keeps_last(tokens):
    return tokens, tokens[:, 1:]


def loss_sum(logits, targets):
    V = logits.size(-1)
    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), reduction="sum")


def loss_sum_per_sequence(logits, targets):
    V = logits.size(-1)
    per = F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), reduction="none")
    return per.reshape(targets.shape).sum(dim=1).mean()


def loss_logits_transposed(logits, targets):
    V = logits.size(-1)
    return F.cross_entropy(logits.transpose(0, 1).reshape(-1, V), targets.reshape(-1))


def loss_targets_transposed(logits, targets):
    V = logits.size(-1)
    return F.cross_entropy(logits.reshape(-1, V), targets.transpose(0, 1).reshape(-1))


def loss_detached(logits, targets):
    V = logits.size(-1)
    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1)).detach()


def loss_item(logits, targets):
    V = logits.size(-1)
    return torch.tensor(F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1)).item())


def loss_nll_on_logits(logits, targets):
    V = logits.size(-1)
    return F.nll_loss(logits.reshape(-1, V), targets.reshape(-1))


def loss_softmax_first(logits, targets):
    V = logits.size(-1)
    return F.cross_entropy(torch.softmax(logits, dim=-1).reshape(-1, V), targets.reshape(-1))


MISCONCEPTIONS = [
    Misconception("shift_reversed", "shift_for_next_token", REVERSED, shift_reversed),
    Misconception("shift_targets_not_shifted", "shift_for_next_token", NOT_SHIFTED, shift_targets_unshifted),
    Misconception("shift_inputs_shifted_too", "shift_for_next_token", NOT_SHIFTED, shift_inputs_shifted),
    Misconception("shift_keeps_last_token", "shift_for_next_token", KEEPS_LAST, shift_keeps_last),
    Misconception("loss_sum", "next_token_loss", SUMMED, loss_sum),
    Misconception("loss_sum_per_sequence", "next_token_loss", SUMMED, loss_sum_per_sequence),
    Misconception("loss_logits_transposed", "next_token_loss", SCRAMBLED, loss_logits_transposed),
    Misconception("loss_targets_transposed", "next_token_loss", SCRAMBLED, loss_targets_transposed),
    Misconception("loss_detached", "next_token_loss", DETACHED, loss_detached),
    Misconception("loss_rebuilt_from_item", "next_token_loss", DETACHED, loss_item),
    Misconception("loss_nll_on_logits", "next_token_loss", NO_LOG_SOFTMAX, loss_nll_on_logits),
    Misconception("loss_softmax_first", "next_token_loss", NO_LOG_SOFTMAX, loss_softmax_first),
]
