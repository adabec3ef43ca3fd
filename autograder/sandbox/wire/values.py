"""How values cross the worker boundary: JSON plus raw tensor bytes, never code.

Reading a message never executes code: no pickle, no torch.load of worker bytes. A
frame is ``8-byte big-endian header length | JSON header | tensor buffers``; the header
says how many bytes the buffers take, so an oversized reply is refused before a byte
of it is read. What decoding may build is bounded before anything is built: each
buffer is used by exactly one tensor (so a 1 MiB header cannot make 21,000 copies of a
64 MiB buffer), nesting is at most MAX_DEPTH deep and a message has at most MAX_NODES
values. The message kinds that travel in frames are in protocol.py.
"""
import json
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

DTYPES: dict[str, torch.dtype] = {name: getattr(torch, name) for name in (
    "float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")}
DTYPE_NAMES = {dtype: name for name, dtype in DTYPES.items()}
# The decoder's bounds on a frame's shape, far above any honest message: what decoding may build before anything
# is built. Not Limits: how large a reply may be is Limits.reply_mib, read from the settings by the caller.
MAX_HEADER = 1 << 20  # 1 MiB of JSON is far beyond any honest reply from a worker
MAX_DEPTH = 32  # the deepest honest value is a tuple of tensors inside a reply: depth 4
MAX_NODES = 100_000  # values in one message (tensors, numbers, strings, containers)


class WireError(Exception):
    """A value that cannot cross the boundary (unknown type, dtype, or over a cap)."""


@dataclass
class RemoteModel:
    """A lab model that stays with the grader: the worker gets a replica with these weights
    and flags whose forward passes the grader runs (sandbox/replica.py, protocol.ModelOp).

    dropout: the model's dropout probability (the one thing of its shape that varies);
    state: its state_dict; modes: the train/eval flag of every module, in modules() order.
    """
    handle: int
    dropout: float
    state: dict[str, Any]
    modes: list[bool]


@dataclass(frozen=True)
class SharedTensor:
    """A tensor argument placed in the call arena, memory shared with the grader: the grader
    sees for itself whether the student's function wrote into its input."""
    offset: int
    dtype: str
    shape: tuple[int, ...]


def _flatten(value: Any, buffers: list[bytes]) -> Any:
    if isinstance(value, torch.Tensor):
        # A subclass's __torch_function__ could lie about dtype or shape while its bytes are
        # read here; with it disabled, the header describes the bytes actually sent.
        with torch._C.DisableTorchFunctionSubclass():
            t = value.detach().to("cpu").contiguous().as_subclass(torch.Tensor)
            if t.dtype not in DTYPE_NAMES:
                raise WireError(f"tensor dtype {t.dtype} is not supported")
            buffers.append(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
            return {"$t": len(buffers) - 1, "dtype": DTYPE_NAMES[t.dtype], "shape": list(t.shape)}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return {"$i": str(value)} if abs(value) > 2 ** 53 else value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else {"$f": repr(value)}
    if isinstance(value, torch.dtype):
        return {"$dtype": DTYPE_NAMES[value]}
    if isinstance(value, RemoteModel):
        return {"$remote": value.handle, "dropout": float(value.dropout), "state": _flatten(value.state, buffers),
                "modes": [bool(m) for m in value.modes]}
    if isinstance(value, SharedTensor):
        return {"$shared": value.offset, "dtype": value.dtype, "shape": list(value.shape)}
    if isinstance(value, (list, tuple)):
        return {"$seq": "tuple" if isinstance(value, tuple) else "list",
                "items": [_flatten(v, buffers) for v in value]}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise WireError("dict keys must be strings")
        return {"$dict": {k: _flatten(v, buffers) for k, v in value.items()}}
    raise WireError(f"a value of type {type(value).__name__} cannot be returned to the grader")


class _Decoder:
    """Builds values from a parsed header, within the caps, each buffer used at most once."""

    def __init__(self, buffers: list[bytes]) -> None:
        self.buffers, self.used, self.nodes = buffers, set[int](), 0

    def value(self, node: Any, depth: int = 0) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES or depth > MAX_DEPTH:
            raise WireError("message is nested too deeply or holds too many values")
        if isinstance(node, list):
            raise WireError("malformed message")
        if not isinstance(node, dict):
            return node
        if "$t" in node:
            return self.tensor(node)
        if "$i" in node:
            text = str(node["$i"])
            if len(text) > 400:
                raise WireError("integer too large")
            return int(text)
        if "$f" in node:
            return float(node["$f"])
        if "$dtype" in node:
            return _dtype(node["$dtype"])
        if "$remote" in node:
            return RemoteModel(int(node["$remote"]), float(node["dropout"]), self.value(node["state"], depth + 1),
                               [bool(m) for m in _items(node["modes"])])
        if "$shared" in node:
            return SharedTensor(int(node["$shared"]), str(node["dtype"]), _shape(node["shape"]))
        if "$seq" in node:
            items = [self.value(v, depth + 1) for v in _items(node["items"])]
            return tuple(items) if node["$seq"] == "tuple" else items
        if "$dict" in node:
            entries = node["$dict"]
            if not isinstance(entries, dict):
                raise WireError("malformed message")
            return {str(k): self.value(v, depth + 1) for k, v in entries.items()}
        raise WireError("malformed message")

    def tensor(self, node: dict[str, Any]) -> torch.Tensor:
        dtype, shape, index = _dtype(node["dtype"]), _shape(node["shape"]), node["$t"]
        if type(index) is not int or not 0 <= index < len(self.buffers):
            raise WireError("malformed tensor")
        if index in self.used:
            raise WireError("a tensor buffer is referenced twice")
        self.used.add(index)
        raw = self.buffers[index]
        numel = 1
        for size in shape:
            numel *= size
        if len(raw) != numel * dtype.itemsize:  # the bytes must be exactly what the header says
            raise WireError("tensor bytes do not match its shape and dtype")
        flat = torch.frombuffer(bytearray(raw), dtype=torch.uint8) if raw else torch.empty(0, dtype=torch.uint8)
        return flat.view(dtype).reshape(shape)


def _dtype(name: Any) -> torch.dtype:
    if name not in DTYPES:
        raise WireError("unknown dtype")
    return DTYPES[name]


def _shape(shape: Any) -> tuple[int, ...]:
    if not isinstance(shape, list) or len(shape) > 16 or not all(type(s) is int and s >= 0 for s in shape):
        raise WireError("malformed tensor shape")
    return tuple(shape)


def _items(items: Any) -> list[Any]:
    if not isinstance(items, list):
        raise WireError("malformed message")
    return items


def encode(message: Any) -> bytes:
    """A JSON-able dict (values may hold tensors) -> bytes of one frame."""
    buffers: list[bytes] = []
    body = _flatten(message, buffers)
    header = json.dumps({"body": body, "sizes": [len(b) for b in buffers]}).encode()
    return struct.pack(">Q", len(header)) + header + b"".join(buffers)


def read_frame(read_exactly: Callable[[int], bytes], max_bytes: int, max_header: int = MAX_HEADER) -> Any:
    """Read one frame with ``read_exactly(n) -> bytes``; refuse it unread if over the caps.

    ``max_header`` bounds the JSON part: 1 MiB for what a worker sends; the grader's own
    start-up message, which carries the notebook's cells, may be as large as the notebook.
    """
    (length,) = struct.unpack(">Q", read_exactly(8))
    if length > max_header:
        raise WireError(f"reply header of {length} bytes is over the {max_header}-byte cap")
    try:
        header = json.loads(read_exactly(length))
    except RecursionError as err:
        raise WireError("message is nested too deeply") from err
    sizes = header.get("sizes", []) if isinstance(header, dict) else None
    if not isinstance(sizes, list) or not all(type(s) is int and s >= 0 for s in sizes):
        raise WireError("malformed frame header")
    total = sum(sizes)
    if total > max_bytes:
        raise WireError(f"reply of {total / 2**20:.0f} MiB is over the {max_bytes / 2**20:.0f} MiB cap "
                        "and was refused unread")
    if len(sizes) > MAX_NODES:
        raise WireError("message holds too many values")
    buffers = [read_exactly(s) for s in sizes]
    return _Decoder(buffers).value(header.get("body"))
