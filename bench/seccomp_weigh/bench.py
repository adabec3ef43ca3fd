"""Per-system-call cost of each filter, installed for real in a forked child, interleaved.
PYTHONPATH=. .venv/bin/python bench.py ROUNDS N"""
import ctypes, json, os, platform, random, statistics, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bpf, build_lsc, hand_variant
from autograder.sandbox import syscalls as S
from autograder.linux import seccomp as SC
from autograder.linux.numbers import number

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 7
N = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
M = platform.machine()
LOOP = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)), "libloop.so")).loop
LOOP.restype = ctypes.c_long
LOOP.argtypes = [ctypes.c_long] * 6
POLICY = S.Policy()
PROGRAMS = {"none": None, "hand": S.program(M, POLICY), "lsc-priority": build_lsc.build(M, POLICY, 1),
            "lsc-tree": build_lsc.build(M, POLICY, 2), "hand-shared-ret": hand_variant.shared_ret(M, POLICY)}
F_GETFD = 1
CALLS = {  # name: (nr, args) -- each answered the same by both filters
    "getppid (allowed, no arg check)": (number("getppid"), [0, 0, 0, 0]),
    "fcntl F_GETFD (allowed, arg checked)": (number("fcntl"), [0, F_GETFD, 0, 0]),
    "ioctl FIONREAD on a bad fd (allowed, arg checked)": (number("ioctl"), [-1, 0x541B, 0, 0]),
    "nr 999 (unlisted: ENOSYS, whole filter)": (999, [0, 0, 0, 0]),
}


def child(name):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            if PROGRAMS[name] is not None:
                SC.install(PROGRAMS[name])
            out = {}
            for call, (nr, args) in CALLS.items():
                LOOP(nr, *args, N // 20)  # warm
                out[call] = LOOP(nr, *args, N) / N
            os.write(w, json.dumps(out).encode())
        finally:
            os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    return json.loads(data)


def main():
    steps = {name: {call: (bpf.run(p, bpf.seccomp_data(nr, SC.AUDIT_ARCH[M], [a & (2**64 - 1) for a in args]))[1]
                           if p else 0) for call, (nr, args) in CALLS.items()} for name, p in PROGRAMS.items()}
    results = {name: {call: [] for call in CALLS} for name in PROGRAMS}
    names = list(PROGRAMS)
    rnd = random.Random(0)
    for rnd_i in range(ROUNDS):
        order = names[rnd_i % len(names):] + names[:rnd_i % len(names)]  # rotate, so none is always first
        for name in order:
            for call, ns in child(name).items():
                results[name][call].append(ns)
    summary = {}
    for call in CALLS:
        print(f"\n{call}  (CPU ns per call, thread clock, {ROUNDS} rounds of {N:,} calls; BPF instructions run in brackets)")
        base = statistics.median(results["none"][call])
        for name in PROGRAMS:
            raw = results[name][call]
            xs = sorted(raw)
            med = statistics.median(xs)
            paired = sorted(a - b for a, b in zip(raw, results["none"][call]))  # same round, back to back
            q = lambda p: paired[min(len(paired) - 1, int(p * len(paired)))]
            summary.setdefault(call, {})[name] = {"median": med, "min": xs[0], "max": xs[-1],
                                                  "over_none": med - base, "paired_over_none_median": statistics.median(paired),
                                                  "paired_q25": q(0.25), "paired_q75": q(0.75),
                                                  "steps": steps[name][call], "runs": raw}
            print(f"  {name:15} [{steps[name][call]:3}] median {med:7.1f}  min {xs[0]:7.1f}  max {xs[-1]:7.1f}  "
                  f"over none {med - base:+7.1f}  paired over none median {statistics.median(paired):+7.1f} IQR [{q(0.25):+6.1f}, {q(0.75):+6.1f}]")
    if len(sys.argv) > 3:
        json.dump(summary, open(sys.argv[3], "w"), indent=1)


main()
