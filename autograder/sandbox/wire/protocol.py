"""The messages between the grader and a worker, as typed records (values inside cross via values.py).

    grader -> worker                         worker -> grader
    ----------------                         ----------------
    (the call arena's fd, SCM_RIGHTS)
    Init(cells, output_chars, skip)   ->
                                      <-     CellStart(index), CellEnd(index, error, output) per cell
                                      <-     Ready()
    Call(name, args, kwargs, grad)    ->
                                      <-     ModelOp(handle, "forward", tokens, modes, state)
                                                 0..Limits.model_passes times
    ModelResult(ok, value, error)     ->     (one per ModelOp: the grader ran its own model)
                                      <-     Reply(ok, value, grad, error, models)
    Call ...                                 (until the grader kills the worker)

Everything a worker sends is the student's word: the grader uses a Reply's value as the
return value of the student's function, and nothing else in it but ``models``, the flags
the lab models were left with, which the grader's own models then take (as they would
take model.train(); replica.py). Whether the function wrote into its inputs the grader
sees for itself (the arena is shared memory), and a forward pass runs in the grader, in
the flags and with the weights it was asked for.
"""
from dataclasses import dataclass, field, fields
from collections.abc import Sequence
from typing import Any

from .values import WireError

@dataclass
class Init:
    cells: list[str]
    output_chars: int  # Limits.cell_output_chars: printed output a cell may keep (the grader cuts the rest too)
    skip: list[int] = field(default_factory=list)


@dataclass
class CellStart:
    index: int


@dataclass
class CellEnd:
    index: int
    error: object = None  # {"type", "message", "where", "function"} or None
    output: str = ""
    dropped: int = 0  # characters printed past Init.output_chars (the grader's note says how many)


@dataclass
class Ready:
    pass


@dataclass
class Call:
    name: str
    args: list[Any]
    kwargs: dict[str, Any]
    grad: bool = False  # also send d(value)/d(args[0]): the lab's loss, trained by the grader


@dataclass
class ModelOp:
    handle: int
    op: str  # "forward", the only one
    tokens: object = None
    modes: list[bool] = field(default_factory=list)  # the train/eval flag of every module, in modules() order
    state: object = None  # the weights and buffers (state_dict), only when they differ from what was sent


@dataclass
class ModelResult:
    ok: bool
    value: object = None
    error: str = ""


@dataclass
class Reply:
    ok: bool
    value: object = None
    grad: object = None
    error: object = None
    models: object = None  # {str(handle): flags of every module, or None} of the lab models handed over


KINDS = {cls.__name__: cls for cls in (Init, CellStart, CellEnd, Ready, Call, ModelOp, ModelResult, Reply)}


def to_wire(message: Any) -> dict[str, Any]:
    """A record -> the dict that wire.encode sends."""
    return {"kind": type(message).__name__, **{f.name: getattr(message, f.name) for f in fields(message)}}


def parse(data: Any, expected: Sequence[type[Any]]) -> Any:
    """The dict wire.read_frame built -> a record of one of the ``expected`` classes, or WireError.

    Extra keys are refused, so a forged frame cannot smuggle anything past a record.
    """
    if not isinstance(data, dict) or data.get("kind") not in {cls.__name__ for cls in expected}:
        raise WireError(f"unexpected message (wanted {' or '.join(c.__name__ for c in expected)})")
    cls = KINDS[data["kind"]]
    names = {f.name for f in fields(cls)}
    extra = set(data) - names - {"kind"}
    if extra:
        raise WireError(f"unexpected fields in {cls.__name__}")
    try:
        record = cls(**{k: v for k, v in data.items() if k != "kind"})
    except TypeError as err:
        raise WireError(f"malformed {cls.__name__}") from err
    for name, kind in (("index", int), ("handle", int), ("name", str), ("op", str), ("output", str),
                       ("output_chars", int), ("dropped", int)):
        if name in names and not isinstance(getattr(record, name), kind):
            raise WireError(f"malformed {cls.__name__}")
    return record
