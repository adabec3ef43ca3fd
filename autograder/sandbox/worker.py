"""The worker: run one submission's cells, then answer the grader's calls until killed.

Everything it sends is wire-encoded data; the grader decides what any of it is worth.
"""
import os
import socket
import sys
import types

import torch

from . import calls, wire
from .notebook_exec import new_namespace, run_cell


class Channel:
    def __init__(self, sock):
        self.sock = sock

    def send(self, message):
        self.sock.sendall(wire.encode(message))

    def read_exactly(self, n):
        chunks, left = [], n
        while left:
            chunk = self.sock.recv(min(left, 1 << 20))
            if not chunk:
                raise EOFError("grader closed the channel")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def receive(self):
        return wire.read_frame(self.read_exactly, max_bytes=1 << 31)


def load_lab(source):
    module = types.ModuleType("lab")
    exec(compile(source, "lab.py", "exec"), module.__dict__)  # noqa: S102 - the public lab code
    return module


def reset_random_state():
    """Every worker starts from the same random state, whatever its template ran before the fork.

    A notebook that draws random numbers without seeding then gets the same draws in
    every grade, cold or batch, calls lane or training lane: same submission, same score.
    """
    import random
    random.seed(0)
    torch.default_generator.manual_seed(0)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(0)


def serve(sock, lab):
    channel = Channel(sock)
    init = channel.receive()
    reset_random_state()
    namespace = new_namespace()
    skip = set(init.get("skip", []))
    for index, source in enumerate(init["cells"]):
        if index in skip or not source.strip():
            continue
        channel.send({"event": "cell_start", "index": index})
        error, output = run_cell(namespace, index, source)
        channel.send({"event": "cell_end", "index": index, "error": error, "output": output})
    channel.send({"event": "ready"})
    while True:
        request = channel.receive()
        if request["op"] == "train":
            reply = calls.run_training(namespace, lab, request["epochs"], request["positions"])
        else:
            reply = calls.run_call(namespace, lab, request["name"], request["args"], request["kwargs"])
        try:
            channel.send({"event": "reply", **reply})
        except Exception as err:  # noqa: BLE001 - not data, too big to encode, or a broken object
            channel.send({"event": "reply", "ok": False,
                          "error": {"type": "BadReturn", "message": str(err), "where": ""}})


def silence_stdio():
    """fd-level output (C code, os.write, child processes) goes nowhere; Python output is captured per cell."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115


def main_from_fd(fd, lab):
    sock = socket.socket(fileno=fd)
    try:
        serve(sock, lab)
    except (EOFError, ConnectionError, OSError):
        pass
    finally:
        os._exit(0)
