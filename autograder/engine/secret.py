"""The grader's secret: what makes a submission's probes unpredictable, and the reference cache unforgeable.

Kept in a file the worker can never see (under the checkout's build/, which the sandbox
covers; in the Gradescope zip under /autograder, covered too). Read only after the
worker template has been forked, so no worker inherits it. A course that grades in
several places (nbgrader here, Gradescope there) shares the file to get the same probes,
hence the same scores, everywhere: `make gradescope` copies it into the zip.
"""
import os
from pathlib import Path

from ..assignment import SECRET_KEY as SECRET_FILE  # AUTOGRADER_SECRET_FILE overrides


loaded = False  # set once the secret is in this process's memory: engine/template.py then refuses to fork


def path():
    return Path(os.environ.get("AUTOGRADER_SECRET_FILE") or SECRET_FILE)


def load():
    """The secret's bytes; created (32 random bytes, mode 0600) on first use."""
    global loaded
    loaded = True
    where = path()
    try:
        data = where.read_bytes()
        if len(data) >= 16:
            return data
    except FileNotFoundError:
        pass
    where.parent.mkdir(parents=True, exist_ok=True)
    partial = where.with_name(f".{where.name}.{os.getpid()}")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(os.urandom(32))
    try:
        os.link(partial, where)  # first writer wins; a concurrent grader reads the same secret
    except FileExistsError:
        pass
    finally:
        partial.unlink()
    return where.read_bytes()
