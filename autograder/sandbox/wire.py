"""The only format that crosses the worker boundary: JSON plus raw tensor bytes.

Reading a message never executes code: no pickle, no torch.load of worker bytes. A
frame is ``8-byte big-endian header length | JSON header | tensor buffers``; the header
says how many bytes the buffers take, so an oversized reply is refused before a byte
of it is read.
"""
import json
import struct
from dataclasses import dataclass, field

import torch

DTYPES = {name: getattr(torch, name) for name in (
    "float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool")}
DTYPE_NAMES = {dtype: name for name, dtype in DTYPES.items()}
MAX_HEADER = 1 << 20  # 1 MiB of JSON is far beyond any honest reply


class WireError(Exception):
    """A value that cannot cross the boundary (unknown type, dtype, or over the size cap)."""


@dataclass
class ModuleSpec:
    """A torch module described as data; the worker builds it from public code.

    kind: "mha" -> nn.MultiheadAttention(**config, batch_first=True);
          "lab" -> the lab's TinyTransformer, config {"mask": "causal" | "none" | "one_step", "dropout": p}.
    state: its state_dict; training: the mode it is handed over in.
    """
    kind: str
    config: dict
    state: dict = field(default_factory=dict)
    training: bool = False


def _flatten(value, buffers):
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
    if isinstance(value, ModuleSpec):
        return {"$module": value.kind, "config": _flatten(value.config, buffers),
                "state": _flatten(value.state, buffers), "training": value.training}
    if isinstance(value, (list, tuple)):
        return {"$seq": "tuple" if isinstance(value, tuple) else "list",
                "items": [_flatten(v, buffers) for v in value]}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise WireError("dict keys must be strings")
        return {"$dict": {k: _flatten(v, buffers) for k, v in value.items()}}
    raise WireError(f"a value of type {type(value).__name__} cannot be returned to the grader")


def _unflatten(node, buffers):
    if isinstance(node, dict):
        if "$t" in node:
            dtype, shape = DTYPES[node["dtype"]], [int(s) for s in node["shape"]]
            index = int(node["$t"])
            if not 0 <= index < len(buffers) or min(shape, default=0) < 0:
                raise WireError("malformed tensor")
            raw = buffers[index]
            numel = 1
            for size in shape:
                numel *= size
            if len(raw) != numel * dtype.itemsize:  # the bytes must be exactly what the header says
                raise WireError("tensor bytes do not match its shape and dtype")
            flat = torch.frombuffer(bytearray(raw), dtype=torch.uint8) if raw else torch.empty(0, dtype=torch.uint8)
            return flat.view(dtype).reshape(shape).clone()
        if "$i" in node:
            return int(node["$i"])
        if "$f" in node:
            return float(node["$f"])
        if "$dtype" in node:
            return DTYPES[node["$dtype"]]
        if "$module" in node:
            return ModuleSpec(str(node["$module"]), _unflatten(node["config"], buffers),
                              _unflatten(node["state"], buffers), bool(node["training"]))
        if "$seq" in node:
            items = [_unflatten(v, buffers) for v in node["items"]]
            return tuple(items) if node["$seq"] == "tuple" else items
        if "$dict" in node:
            return {str(k): _unflatten(v, buffers) for k, v in node["$dict"].items()}
        raise WireError("malformed message")
    if isinstance(node, list):
        raise WireError("malformed message")
    return node


def encode(message):
    """dict -> bytes of one frame."""
    buffers = []
    body = _flatten(message, buffers)
    header = json.dumps({"body": body, "sizes": [len(b) for b in buffers]}).encode()
    return struct.pack(">Q", len(header)) + header + b"".join(buffers)


def read_frame(read_exactly, max_bytes):
    """Read one frame with ``read_exactly(n) -> bytes``; refuse it unread if over max_bytes."""
    (length,) = struct.unpack(">Q", read_exactly(8))
    if length > MAX_HEADER:
        raise WireError(f"reply header of {length} bytes is over the {MAX_HEADER}-byte cap")
    header = json.loads(read_exactly(length))
    sizes = [int(s) for s in header.get("sizes", [])]
    total = sum(sizes)
    if total > max_bytes or any(s < 0 for s in sizes):
        raise WireError(f"reply of {total / 2**20:.0f} MiB is over the {max_bytes / 2**20:.0f} MiB cap "
                        "and was refused unread")
    buffers = [read_exactly(s) for s in sizes]
    return _unflatten(header["body"], buffers)
