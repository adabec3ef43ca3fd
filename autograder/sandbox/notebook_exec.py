"""Execute notebook cells the way Jupyter would, minus the shell.

IPython syntax is translated by IPython's own transformer, then ``get_ipython()``
answers every magic and ``!command`` with nothing: no shell command ever runs.
"""
import builtins
import io
import sys

from IPython.core.inputtransformer2 import TransformerManager

from .calls import describe_error

_transform = TransformerManager().transform_cell


class _BoundedText(io.TextIOBase):
    """A stdout that keeps the first ``cap`` characters (Limits.cell_output_chars) and counts the rest, dropped
    cheaply (the grader, which cuts at the same limit, notes how many were dropped)."""

    def __init__(self, cap):
        self.cap, self.parts, self.size, self.dropped = cap, [], 0, 0

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        room = self.cap - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def getvalue(self):
        return "".join(self.parts)


class _NoShell:
    """Stands in for IPython's shell: magics and shell escapes are accepted and ignored."""

    def __init__(self, namespace):
        self.user_ns = namespace

    def run_line_magic(self, name, line, *args, **kwargs):
        return None

    def run_cell_magic(self, name, line, cell):
        if name in ("time", "capture"):  # these only observe the cell, so run its body
            exec(compile(_transform(cell), "<cell magic>", "exec"), self.user_ns)  # noqa: S102
        return None

    def system(self, *args, **kwargs):
        return None

    def getoutput(self, *args, **kwargs):
        return []

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def new_namespace():
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    shell = _NoShell(namespace)
    namespace["get_ipython"] = lambda: shell
    namespace["display"] = lambda *args, **kwargs: None
    return namespace


def run_cell(namespace, index, source, output_chars):
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
