"""Network attempts from a top-level cell and a graded function (TCP to a host loopback listener and to TEST-NET 192.0.2.1, UDP, a host abstract Unix socket): attacks the network; all must fail fast and every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
EXPECT = ["NET: tcp-loopback=refused", "NET: tcp-testnet=refused", "NET: abstract=refused", "NET: udp=refused"]
NEVER = ["=CONNECTED"]
_PROBE = '''
import socket as _socket
import time as _time


def net_probe():
    results = []
    attempts = [("tcp-loopback", _socket.AF_INET, ("127.0.0.1", __LISTEN_PORT__)),
                ("tcp-testnet", _socket.AF_INET, ("192.0.2.1", 80)),
                ("abstract", _socket.AF_UNIX, "\\0__ABSTRACT__")]
    for label, family, address in attempts:
        started = _time.monotonic()
        probe = None
        try:  # socket() itself is refused in the worker (sandbox/syscalls.py); a connect would be too
            probe = _socket.socket(family, _socket.SOCK_STREAM)
            probe.settimeout(1.0)
            probe.connect(address)
            probe.sendall(b"HOSTILE_NETWORK_REACHED")
            outcome = "CONNECTED"
        except OSError as err:
            outcome = f"refused ({type(err).__name__})"
        finally:
            if probe is not None:
                probe.close()
        results.append(f"{label}={outcome} in {_time.monotonic() - started:.2f}s")
    try:
        udp = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)
        udp.sendto(b"HOSTILE_NETWORK_REACHED", ("127.0.0.1", __LISTEN_PORT__))
        results.append("udp=SENT")
    except OSError as err:
        results.append(f"udp=refused ({type(err).__name__})")
    return results
'''
ADD = [(None, _PROBE + '''
raise RuntimeError(" | ".join("NET: " + r for r in net_probe()))
'''), ("masks_solution", _PROBE + '''
_causal_mask_allowed = causal_mask_allowed


def causal_mask_allowed(T):
    if any("CONNECTED" in r for r in net_probe()):
        return None
    return _causal_mask_allowed(T)
''')]


def check(output):
    """Every attempt failed fast (the cell's message lists each with its duration)."""
    import re
    times = [float(t) for t in re.findall(r"NET: [a-z-]+=refused \([A-Za-z]+\) in ([0-9.]+)s", output)]
    assert len(times) == 3 and max(times) < 1.5, f"network attempts were not all refused fast: {output}"
