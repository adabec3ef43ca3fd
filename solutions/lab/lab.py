"""Tiny causal transformer on modular counting: data, model, training, generation.

Nothing here is a graded answer: the mask, target shift, loss, positions and leakage
check are passed in, so the same loop runs with the reference pieces or a student's.
"""
import copy
import math

import torch
from torch import nn

VOCAB, WIDTH, LENGTH = 8, 32, 12  # tokens 0..7, model width, sequence length (+1 for the target)
HEADS, FEEDFORWARD, LAYERS = 4, 64, 2
SPLITS = {"train": (256, 1), "val": (64, 2), "test": (128, 3)}  # name: (sequences, data seed)
MAX_POSITIONS = 64
TORCH_SEED, LEARNING_RATE, BATCH, CLIP = 7, 0.003, 64, 1.0
EPOCHS = {"smoke": 2, "full": 25}
BASELINE = math.log(VOCAB)  # cross-entropy of always predicting uniformly: 2.0794


def counting_sequences(n, seed):
    """(n, LENGTH + 1) long: a random start s, then s+1, s+2, ... modulo VOCAB."""
    g = torch.Generator().manual_seed(seed)
    starts = torch.randint(VOCAB, (n, 1), generator=g)  # (n, 1)
    return (starts + torch.arange(LENGTH + 1)) % VOCAB  # (n, LENGTH + 1)


def lab_splits():
    return {name: counting_sequences(n, seed) for name, (n, seed) in SPLITS.items()}


class TinyTransformer(nn.Module):
    """Token embedding * sqrt(WIDTH) + a fixed position table -> 2 encoder layers -> logits.

    positions: (MAX_POSITIONS, WIDTH) float table; mask_fn(T) -> the encoder's mask
    (True = blocked). Both are passed in so a student's pieces can drive the model.
    """

    def __init__(self, positions, mask_fn, dropout=0.0):
        super().__init__()
        self.mask_fn = mask_fn
        self.embedding = nn.Embedding(VOCAB, WIDTH)
        layer = nn.TransformerEncoderLayer(WIDTH, HEADS, FEEDFORWARD, dropout=dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        # TransformerEncoder deep-copies one layer, so every layer would start identical.
        for block in self.encoder.layers:
            for weight in block.parameters():
                if weight.dim() > 1:
                    nn.init.xavier_uniform_(weight)
        self.head = nn.Linear(WIDTH, VOCAB)
        self.register_buffer("positions", positions.detach().clone().float())

    def forward(self, tokens):  # tokens (N, T) -> logits (N, T, VOCAB)
        T = tokens.size(1)
        x = self.embedding(tokens) * math.sqrt(WIDTH) + self.positions[:T]  # (N, T, D)
        return self.head(self.encoder(x, mask=self.mask_fn(T)))


def split_loss(model, tokens, shift_fn, loss_fn):
    inputs, targets = shift_fn(tokens)
    return loss_fn(model(inputs), targets)


def train_lab(epochs, positions, mask_fn, shift_fn, loss_fn, leak_check=None, progress=None,
              optimizer=torch.optim.AdamW):
    """Train with AdamW, keep the checkpoint with the best validation loss.

    leak_check(model, tokens, cut, vocab) runs on the untrained model and must raise
    on leakage; progress(epoch, val_loss) is called after every epoch; optimizer makes
    the optimizer from the parameters and the learning rate.
    Returns (model loaded with the validation-selected weights, its validation loss).
    """
    torch.manual_seed(TORCH_SEED)
    data = lab_splits()
    model = TinyTransformer(positions, mask_fn)
    model.eval()
    with torch.no_grad():
        if leak_check is not None:
            leak_check(model, data["train"][:4, :-1], 5, VOCAB)
        best_loss = split_loss(model, data["val"], shift_fn, loss_fn).item()
    best = copy.deepcopy(model.state_dict())
    opt = optimizer(model.parameters(), lr=LEARNING_RATE)
    for epoch in range(epochs):
        model.train()
        for rows in torch.randperm(len(data["train"])).split(BATCH):
            opt.zero_grad()
            loss = split_loss(model, data["train"][rows], shift_fn, loss_fn)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"training loss became {loss.item()} in epoch {epoch + 1}")
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), CLIP)
            opt.step()
        model.eval()
        with torch.no_grad():
            val = split_loss(model, data["val"], shift_fn, loss_fn).item()
        if val < best_loss:  # validation, never test, picks the checkpoint
            best_loss, best = val, copy.deepcopy(model.state_dict())
        if progress is not None:
            progress(epoch + 1, val)
    model.load_state_dict(best)
    model.eval()
    return model, best_loss


@torch.no_grad()
def greedy_generate(model, start=2, steps=LENGTH - 1):
    """Feed back the most likely next token, one step at a time (generation is sequential)."""
    model.eval()
    tokens = torch.tensor([[start]])  # (1, 1)
    for _ in range(steps):
        following = model(tokens)[:, -1].argmax(-1, keepdim=True)  # (1, 1)
        tokens = torch.cat([tokens, following], dim=1)
    return tokens[0].tolist()
