"""The worker: run one submission's cells, then answer the grader's calls until killed.

Everything it sends is wire-encoded data; the grader decides what any of it is worth.
"""
import mmap
import os
import socket
import sys
import types
from typing import Any, NoReturn

import torch

from ...assignment import served
from ..wire import protocol, values as wire
from . import calls
from .notebook_exec import new_namespace, run_cell


class Channel:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def send(self, message: Any) -> None:
        self.sock.sendall(wire.encode(message))

    def read_exactly(self, n: int) -> bytes:
        chunks, left = list[bytes](), n
        while left:
            chunk = self.sock.recv(min(left, 1 << 20))
            if not chunk:
                raise EOFError("grader closed the channel")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def receive(self) -> Any:
        # The grader is the only sender: its start-up message may be as large as the notebook.
        return wire.read_frame(self.read_exactly, max_bytes=1 << 31, max_header=1 << 31)


def load_lab(source: str) -> types.ModuleType:
    module = types.ModuleType("lab")
    exec(compile(source, "lab.py", "exec"), module.__dict__)  # noqa: S102 - the public lab code
    return module


def reset_random_state() -> None:
    """Every worker starts from the same random state, whatever its template ran before the fork.

    A notebook that draws random numbers without seeding then gets the same draws in
    every grade, cold or batch: same submission, same score.
    """
    import random
    random.seed(0)
    torch.default_generator.manual_seed(0)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(0)


def receive_arena(sock: socket.socket) -> mmap.mmap:
    """The call arena: shared memory the grader places tensor arguments in (see protocol.py)."""
    _, fds, _, _ = socket.recv_fds(sock, 1, 1)
    if not fds:
        raise EOFError("no call arena")
    arena = mmap.mmap(fds[0], 0)
    os.close(fds[0])
    return arena


def serve(sock: socket.socket, lab: types.ModuleType) -> NoReturn:
    channel = Channel(sock)
    arena = receive_arena(sock)
    init = protocol.parse(channel.receive(), [protocol.Init])
    reset_random_state()
    namespace = new_namespace()
    skip = set(init.skip)
    for index, source in enumerate(init.cells):
        if index in skip or not source.strip():
            continue
        channel.send(protocol.to_wire(protocol.CellStart(index)))
        error, output, dropped = run_cell(namespace, index, source, init.output_chars)
        channel.send(protocol.to_wire(protocol.CellEnd(index, error, output, dropped)))
    channel.send(protocol.to_wire(protocol.Ready()))
    replicas = served().replicas(channel, lab)  # the assignment's stand-ins (plugin_api.Served)
    while True:
        call = protocol.parse(channel.receive(), [protocol.Call])
        reply = calls.run_call(namespace, call, replicas, arena)
        try:
            channel.send(protocol.to_wire(reply))
        except Exception as err:  # noqa: BLE001 - not data, too big to encode, or a broken object
            channel.send(protocol.to_wire(protocol.Reply(False, error={"type": "BadReturn", "message": str(err),
                                                                       "where": ""})))


def silence_stdio() -> None:
    """fd-level output (C code, os.write, child processes) goes nowhere; Python output is captured per cell."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115


def main_from_fd(fd: int, lab: types.ModuleType) -> NoReturn:
    sock = socket.socket(fileno=fd)
    try:
        serve(sock, lab)
    except (EOFError, ConnectionError, OSError, wire.WireError):
        pass
    finally:
        os._exit(0)
