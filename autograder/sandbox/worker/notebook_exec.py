"""Execute notebook cells the way Jupyter would, minus the shell.

IPython syntax is translated by IPython's own transformer, then ``get_ipython()``
answers every magic and ``!command`` with nothing: no shell command ever runs.
"""
import builtins
import io
import sys
from collections.abc import Callable
from typing import Any

from IPython.core.inputtransformer2 import TransformerManager

from .calls import describe_error

_transform = TransformerManager().transform_cell  # type: ignore[no-untyped-call]  # IPython: not annotated


class _BoundedText(io.TextIOBase):
    """A stdout that keeps the first ``cap`` characters (Limits.cell_output_chars) and counts the rest, dropped
    cheaply (the grader, which cuts at the same limit, notes how many were dropped)."""

    def __init__(self, cap: int) -> None:
        self.cap, self.parts, self.size, self.dropped = cap, list[str](), 0, 0

    def writable(self) -> bool:
        return True

    def write(self, text: object) -> int:
        text = str(text)
        room = self.cap - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def getvalue(self) -> str:
        return "".join(self.parts)


class _NoShell:
    """Stands in for IPython's shell: magics and shell escapes are accepted and ignored."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        self.user_ns = namespace

    def run_line_magic(self, name: str, line: str, *args: Any, **kwargs: Any) -> None:
        return None

    def run_cell_magic(self, name: str, line: str, cell: str) -> None:
        if name in ("time", "capture"):  # these only observe the cell, so run its body
            exec(compile(_transform(cell), "<cell magic>", "exec"), self.user_ns)  # noqa: S102
        return None

    def system(self, *args: Any, **kwargs: Any) -> None:
        return None

    def getoutput(self, *args: Any, **kwargs: Any) -> list[str]:
        return []

    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: None


def new_namespace() -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    shell = _NoShell(namespace)
    namespace["get_ipython"] = lambda: shell
    namespace["display"] = lambda *args, **kwargs: None
    return namespace


def run_cell(namespace: dict[str, Any], index: int, source: str,
             output_chars: int) -> tuple[dict[str, str] | None, str, int]:
    """Run one cell; return (error dict or None, its first ``output_chars`` characters of output, how many more it
    printed)."""
    out = _BoundedText(output_chars)
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = out
    try:
        code = compile(_transform(source), f"<cell {index + 1}>", "exec")
        exec(code, namespace)  # noqa: S102 - this is the untrusted worker; that is its job
        error = None
    except BaseException as err:  # SystemExit in a cell is recorded, like Jupyter does
        if isinstance(err, KeyboardInterrupt):
            raise
        error = describe_error(err)
        if isinstance(err, SyntaxError):
            error["where"] = f" (notebook cell {index + 1}, line {err.lineno})"
    finally:
        sys.stdout, sys.stderr = saved
    return error, out.getvalue(), out.dropped
