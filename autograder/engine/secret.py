"""The grader's secret: what makes a submission's probes unpredictable, and the reference cache unforgeable.

Kept in a file the worker can never see (under the checkout's build/, which the sandbox
covers; in the Gradescope zip under /autograder, covered too). Read only after the
worker template has been forked, so no worker inherits it. A course that grades in
several places (nbgrader here, Gradescope there) shares the file to get the same probes,
hence the same scores, everywhere: `make gradescope` copies it into the zip.

A missing key is made (32 random bytes, mode 0600). One that is there is used only if it is
a regular file of at least ``MIN_BYTES`` bytes, readable, and readable by its owner alone;
anything else is refused (``SecretError``, which says how to fix it) and never used: a short
key would make every probe predictable, a world-readable one lets anyone forge them.
"""
import hashlib
import hmac
import os
import stat
from pathlib import Path

from ..assignment import SECRET_KEY as SECRET_FILE  # AUTOGRADER_SECRET_FILE overrides

MIN_BYTES = 32  # what load() makes; fewer random bytes than that is no key of ours

loaded = False  # set once the secret is in this process's memory: engine/template.py then refuses to fork


class SecretError(Exception):
    """The key file exists but may not be used; ``str()`` says what is wrong and how to fix it."""


def path() -> Path:
    return Path(os.environ.get("AUTOGRADER_SECRET_FILE") or SECRET_FILE)


def _refuse(where: Path, what: str, fix: str) -> SecretError:
    return SecretError(f"the secret key {where} {what}; it was not used and nothing was graded. {fix}")


def _remake(where: Path) -> str:
    return (f"Delete it (rm {where}) to have a new one made on the next grade (every course copy, e.g. the "
            "Gradescope zip, then needs the new one), or put the course's own key back")


def _checked(where: Path, st: os.stat_result) -> None:
    """Raise SecretError unless ``st`` (of the key file, followed) describes a key we may use."""
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(where, "is not a regular file", _remake(where))
    if st.st_mode & 0o077:
        raise _refuse(where, f"can be read by others (mode {stat.S_IMODE(st.st_mode):03o})",
                      f"Make it private: chmod 600 {where} (and check who may have copied it)")
    if st.st_size < MIN_BYTES:
        raise _refuse(where, f"is {st.st_size} bytes, shorter than the {MIN_BYTES} it must have", _remake(where))


def check() -> None:
    """Refuse (SecretError) a key file that load() would refuse, without reading it: callable before the
    template forks. A missing key is fine (load() makes it)."""
    where = path()
    try:
        st = os.stat(where)
    except FileNotFoundError:
        return
    except OSError as err:
        raise _refuse(where, f"cannot be looked at ({err.strerror})", _remake(where)) from None
    _checked(where, st)
    if not os.access(where, os.R_OK):
        raise _refuse(where, "cannot be read", f"Give its owner read access (chmod 600 {where}), or delete it to "
                                               "have a new one made")


def load() -> bytes:
    """The secret's bytes; created (32 random bytes, mode 0600) when there is none; SecretError when the file
    there may not be used (see the module's docstring)."""
    global loaded
    loaded = True
    where = path()
    try:
        return _read(where)
    except FileNotFoundError:
        pass
    where.parent.mkdir(parents=True, exist_ok=True)
    partial = where.with_name(f".{where.name}.{os.getpid()}")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(os.urandom(MIN_BYTES))
        handle.flush()
        os.fsync(handle.fileno())
    try:
        os.link(partial, where)  # first writer wins; a concurrent grader reads the same secret
    except FileExistsError:
        pass
    finally:
        partial.unlink()
    return _read(where)


def _read(where: Path) -> bytes:
    """The bytes of the key file ``where`` as checked on the open file itself; FileNotFoundError if none."""
    try:
        fd = os.open(where, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise
    except OSError as err:
        raise _refuse(where, f"cannot be read ({err.strerror})",
                      f"Give its owner read access (chmod 600 {where}), or delete it to have a new one made") from None
    try:
        _checked(where, os.fstat(fd))
        data = b""
        while chunk := os.read(fd, 4096):
            data += chunk
    except OSError as err:
        raise _refuse(where, f"cannot be read ({err.strerror})", _remake(where)) from None
    finally:
        os.close(fd)
    if len(data) < MIN_BYTES:
        raise _refuse(where, f"is {len(data)} bytes, shorter than the {MIN_BYTES} it must have", _remake(where))
    return data


def submission_base(secret: bytes, notebook_sha256: str) -> int:
    """The probe base of one notebook: HMAC-SHA256(secret, sha256 of its bytes), all 256 bits.

    The assignment draws that notebook's probes from it (plugin_api.Served.use_submission)."""
    digest = hmac.new(secret, notebook_sha256.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest, "big")
