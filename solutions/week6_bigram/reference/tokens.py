"""tokens: a character vocabulary, and text to ids and back."""
import torch


def build_vocab(text):
    """The characters of ``text``, sorted: (stoi, itos) with stoi = {char: id}, itos = [char, ...] (itos[id] = char)."""
    ### BEGIN SOLUTION
    itos = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(itos)}
    return stoi, itos
    ### END SOLUTION


def encode(text, stoi):
    """The ids of the characters of ``text``: a 1-D LongTensor of len(text)."""
    ### BEGIN SOLUTION
    return torch.tensor([stoi[ch] for ch in text], dtype=torch.long)
    ### END SOLUTION


def decode(ids, itos):
    """The text of a sequence of ids (a 1-D tensor or a list): the characters itos[id], joined."""
    ### BEGIN SOLUTION
    return "".join(itos[int(i)] for i in ids)
    ### END SOLUTION
