"""The given lab code of week 6: a small corpus, a bigram language model as an embedding table, its training loop.

Nothing here is a graded answer: the tokeniser, the counts and the evaluation are the student's,
passed in, so the same loop runs with the reference pieces or a student's.
"""
import torch
from torch import nn
from torch.nn import functional as F

CORPUS = (
    "the cat sat on the mat. the dog sat on the log. a cat and a dog met on a mat.\n"
    "to be or not to be, that is the question. the rain in spain stays mainly in the plain.\n"
)
TRAIN_FRACTION = 0.9  # the first 90% of the encoded corpus trains, the rest is held out
LAB_SEED, LAB_STEPS, LAB_LR = 6, 200, 0.5


class BigramLM(nn.Module):
    """A bigram language model: row ``i`` of an embedding table holds the next-token logits after token ``i``.

    ids of any shape -> logits of that shape + (V,). Dropout on the logits makes train and eval mode differ.
    """

    def __init__(self, vocab_size, dropout=0.0):
        super().__init__()
        self.table = nn.Embedding(vocab_size, vocab_size)
        self.drop = nn.Dropout(dropout)

    def forward(self, ids):
        return self.drop(self.table(ids))


def train_bigram(model, ids, steps=LAB_STEPS, lr=LAB_LR, seed=LAB_SEED):
    """Full-batch gradient descent on the next-token cross-entropy of ``ids`` (1-D); returns the last loss."""
    torch.manual_seed(seed)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    model.train()
    loss = torch.tensor(float("nan"))
    for _ in range(steps):
        logits = model(ids[:-1])
        loss = F.cross_entropy(logits, ids[1:])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return float(loss)
