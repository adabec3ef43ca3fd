"""sandbox/wire/values.py as a format: every kind of value the grader and the worker exchange comes back as it went,
with its exact type, dtype, shape and bits; what the format cannot carry is refused by name, never guessed.

Fast unit tests (make test-fast); the decoder's caps and the end-to-end amplification frame are in
tests/test_wire_bounds.py.
"""
import math

import pytest
import torch

from autograder.sandbox.wire import values as wire


def roundtrip(value):
    frame = memoryview(wire.encode({"v": value}))
    pos = [0]

    def read_exactly(n):
        chunk = bytes(frame[pos[0]:pos[0] + n])
        pos[0] += n
        return chunk

    decoded = wire.read_frame(read_exactly, max_bytes=1 << 26)["v"]
    assert pos[0] == len(frame), "the frame has bytes the decoder did not read"
    return decoded


@pytest.mark.parametrize("dtype", list(wire.DTYPES.values()), ids=lambda d: str(d).replace("torch.", ""))
def test_tensors_come_back_bit_for_bit(dtype):
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(3, 4, 5, generator=g) * 50).to(dtype)
    back = roundtrip(x)
    assert type(back) is torch.Tensor and back.dtype == dtype and back.shape == (3, 4, 5)
    assert torch.equal(back.view(torch.uint8), x.view(torch.uint8))  # the bytes, so NaN and -0.0 count too


def test_views_subclasses_and_grad_come_back_as_plain_contiguous_tensors():
    base = torch.arange(24.0).reshape(4, 6)
    view = base.t()[1:3]  # not contiguous, with an offset
    back = roundtrip(view)
    assert back.is_contiguous() and torch.equal(back, view)
    leaf = torch.ones(2, requires_grad=True) * 2
    back = roundtrip(leaf)
    assert not back.requires_grad and torch.equal(back, torch.full((2,), 2.0))

    class Liar(torch.Tensor):
        pass

    back = roundtrip(torch.zeros(3).as_subclass(Liar))
    assert type(back) is torch.Tensor


def test_empty_and_zero_dim_tensors():
    for x in (torch.empty(0, 5), torch.tensor(3.5), torch.zeros(2, 0, 3, dtype=torch.int64)):
        back = roundtrip(x)
        assert back.shape == x.shape and back.dtype == x.dtype and torch.equal(back, x)


def test_python_values_keep_their_types():
    value = {"ints": [0, -7, 2 ** 53 + 1, -(2 ** 80)], "floats": (0.1, -0.0, 1e308),
             "text": "héllo\n", "flags": [True, False, None], "dtype": torch.float16, "nested": {"a": ([1], (2,))}}
    back = roundtrip(value)
    assert back == value
    assert type(back["floats"]) is tuple and type(back["nested"]["a"][1]) is tuple
    assert type(back["ints"][2]) is int and back["ints"][2] == 2 ** 53 + 1  # beyond a JSON double
    assert type(back["flags"][0]) is bool and math.copysign(1.0, back["floats"][1]) == -1.0


def test_non_finite_floats():
    back = roundtrip([float("nan"), float("inf"), float("-inf")])
    assert math.isnan(back[0]) and back[1] == math.inf and back[2] == -math.inf


def test_a_state_dict_crosses_as_a_plain_dict_of_tensors():
    """week 7's multihead check sends an nn.MultiheadAttention's parameters this way (issue 27, item 4): the worker
    gets a dict of str -> plain tensors with the same names and bits, nothing callable and no module."""
    layer = torch.nn.MultiheadAttention(6, 2, batch_first=True)
    state = layer.state_dict()  # an OrderedDict of detached tensors sharing the parameters' storage
    back = roundtrip(state)
    assert type(back) is dict and list(back) == list(state)
    assert list(back) == ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    for name, value in state.items():
        assert type(back[name]) is torch.Tensor and not back[name].requires_grad
        assert torch.equal(back[name], value) and back[name].data_ptr() != value.data_ptr()


def test_the_grader_side_records():
    remote = wire.RemoteModel(3, 0.2, {"embedding.weight": torch.arange(6.0).view(2, 3)}, [True, False, True])
    back = roundtrip([remote, wire.SharedTensor(128, "float32", (2, 3))])
    assert (back[0].handle, back[0].dropout, back[0].modes) == (3, 0.2, [True, False, True])
    assert torch.equal(back[0].state["embedding.weight"], remote.state["embedding.weight"])
    assert back[1] == wire.SharedTensor(128, "float32", (2, 3))


def test_no_module_crosses_as_data():
    """The wire once carried a module as data (``$module``: a kind, its config and state, built on the other
    side). Nothing sends one since week 7's multihead function gets plain tensors (issue 27, item 4), so the
    decoder knows no such record: a frame holding one is malformed, and no object is built from it."""
    import json
    import struct

    module = {"$module": "mha", "config": {"$dict": {}}, "state": {"$dict": {}}, "training": False}
    header = json.dumps({"body": {"$dict": {"v": module}}, "sizes": []}).encode()
    data = memoryview(struct.pack(">Q", len(header)) + header)
    pos = [0]

    def read_exactly(n):
        chunk = bytes(data[pos[0]:pos[0] + n])
        pos[0] += n
        return chunk

    with pytest.raises(wire.WireError, match="malformed"):
        wire.read_frame(read_exactly, max_bytes=1 << 20)


@pytest.mark.parametrize("value, says", [
    (object(), "object cannot be returned"),
    (lambda: 0, "function cannot be returned"),
    ({1: "a"}, "dict keys must be strings"),
    (torch.zeros(2, dtype=torch.complex64), "complex64 is not supported"),
    ({1, 2}, "set cannot be returned"),
])
def test_what_cannot_cross_is_refused_by_name(value, says):
    with pytest.raises(wire.WireError, match=says):
        wire.encode({"v": value})
