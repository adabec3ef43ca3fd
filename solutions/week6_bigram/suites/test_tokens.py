"""tokens: a sorted character vocabulary, text to ids with the given stoi, ids back to text with the given itos."""
import pytest
import torch

from solutions.week6_bigram.served import generator
from solutions.week6_bigram.suites.expect import describe, expect, expect_close, expect_shape

pytestmark = pytest.mark.part("tokens")

ALPHABET = "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 .,;!?\n'-"


def _text(probe, length=40):
    """A random text drawn per submission: repeated characters, upper case, digits, punctuation, newlines."""
    g = generator(probe)
    picks = torch.randint(len(ALPHABET), (length,), generator=g)
    return "".join(ALPHABET[int(i)] for i in picks)


def _shuffled_vocab(text, probe):
    """A vocabulary in an order no sorting gives: encode and decode must use the mapping they are handed."""
    chars = sorted(set(text))
    order = torch.randperm(len(chars), generator=generator(probe)).tolist()
    itos = [chars[i] for i in order]
    return {ch: i for i, ch in enumerate(itos)}, itos


def _vocab(student, text):
    got = student.build_vocab(text)
    expect(isinstance(got, (tuple, list)) and len(got) == 2,
           f"build_vocab should return a pair (stoi, itos), but returned {describe(got)}.")
    stoi, itos = got
    expect(isinstance(stoi, dict), f"stoi should be a dict {{char: id}}, but is {describe(stoi)}.")
    expect(isinstance(itos, (list, tuple)), f"itos should be a list [char, ...], but is {describe(itos)}.")
    return stoi, list(itos)


def _check_vocab(student, text):
    stoi, itos = _vocab(student, text)
    chars = sorted(set(text))
    expect(itos == chars, f"build_vocab({text[:20]!r}...) gave itos with {len(itos)} characters starting "
                          f"{''.join(map(str, itos[:8]))!r}; expected the {len(chars)} distinct characters in sorted "
                          f"order, starting {''.join(chars[:8])!r}.", "itos = sorted(set(text)).")
    expect(stoi == {ch: i for i, ch in enumerate(chars)},
           "stoi is not the inverse of itos: stoi[itos[i]] should be i for every id i.",
           "Build stoi from itos with enumerate.")


@pytest.mark.points(4)
def test_vocab_sorted_unique(student):
    """build_vocab returns the sorted distinct characters and their ids"""
    _check_vocab(student, "hello, world!\nhello again.")


@pytest.mark.points(3)
def test_vocab_other_text(student):
    """build_vocab works for another text (upper case, digits, punctuation)"""
    _check_vocab(student, _text(1))


@pytest.mark.points(4)
def test_encode_uses_given_stoi(student):
    """encode maps each character through the stoi it is given"""
    text = _text(2)
    stoi, _ = _shuffled_vocab(text, 3)
    got = student.encode(text, stoi)
    truth = torch.tensor([stoi[ch] for ch in text])
    expect_close(expect_shape(got, (len(text),), f"encode of a text of {len(text)} characters"), truth, "ids",
                 why=lambda i: f"character {text[i[0]]!r} at position {i[0]}",
                 hint="Look every character up in the stoi you are handed (do not build a new vocabulary).")


@pytest.mark.points(2)
def test_encode_dtype(student):
    """encode returns a 1-D int64 (Long) tensor"""
    text = "abba cab"
    stoi = {ch: i for i, ch in enumerate(sorted(set(text)))}
    got = student.encode(text, stoi)
    expect_shape(got, (len(text),), "encode('abba cab', stoi)")
    expect(got.dtype == torch.int64, f"encode returned a {got.dtype} tensor; ids are torch.long (int64), what "
                                     "nn.Embedding and F.cross_entropy take.", "torch.tensor(..., dtype=torch.long)")


@pytest.mark.points(4)
def test_decode_uses_given_itos(student):
    """decode maps each id through the itos it is given"""
    text = _text(4)
    stoi, itos = _shuffled_vocab(text, 5)
    ids = torch.tensor([stoi[ch] for ch in text])
    got = student.decode(ids, itos)
    expect(isinstance(got, str), f"decode should return a str, but returned {describe(got)}.")
    expect(got == text, f"decode gave {got[:30]!r}..., expected {text[:30]!r}...",
           "Join itos[int(i)] for each id, in order, with no separator.")


@pytest.mark.points(3)
def test_round_trip(student):
    """decode(encode(text)) gives the text back, ids as a tensor or as a list"""
    text = _text(6, length=25)
    stoi, itos = _vocab(student, text)
    ids = student.encode(text, stoi)
    expect(isinstance(ids, torch.Tensor), f"encode should return a tensor, but returned {describe(ids)}.")
    back = student.decode(ids, itos)
    expect(back == text, f"decode(encode(text)) gave {back!r:.40}, expected {text!r:.40}.")
    back = student.decode(ids.tolist(), itos)
    expect(back == text, f"decode of the ids as a Python list gave {back!r:.40}, expected {text!r:.40}.",
           "Take the ids one by one with int(i), which works for tensors and lists alike.")
