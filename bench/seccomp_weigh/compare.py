"""Runs the hand filter and libseccomp's on the same struct seccomp_data cases, lists every disagreement.

PYTHONPATH=. .venv/bin/python bench/seccomp_weigh/compare.py [--json out.json]"""
import errno, itertools, json, os, random, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bpf, build_lsc, lsc
from autograder.sandbox import syscalls as S
from autograder.linux import flags as F, seccomp as SC
from autograder.linux.numbers import NUMBERS, number

# 1. the interpreter against the project's own (tests/test_syscalls.py's run) on the hand filter
sys.path.insert(0, "tests")
import importlib.util
spec = importlib.util.spec_from_file_location("ts", "tests/test_syscalls.py")
ts = importlib.util.module_from_spec(spec); spec.loader.exec_module(ts)

POLICIES = {"namespaces": S.Policy(),
            "landlock-abi3": S.Policy(metadata=False, truncate_by_path=True, self_only=True, own_group=False),
            "landlock-abi<3": S.Policy(metadata=False, truncate_by_path=False, self_only=True, own_group=False)}
ARCH = {"x86_64": lsc.ARCH_X86_64, "aarch64": lsc.ARCH_AARCH64}
OTHER_ARCHES = [0x40000003, 0x4000003E, 0xC00000B7, 0xC000003E, 0, 0xFFFFFFFF]  # i386, x32, aarch64, x86_64, junk

HI = [0, 1 << 32, 0xFFFFFFFF00000000]
def interesting(values):
    out = set()
    for v in values:
        for h in HI:
            out.add((v | h) & 0xFFFFFFFFFFFFFFFF)
    return sorted(out)

def arg_cases(machine):
    """(nr, args) for every call whose arguments either filter looks at."""
    nr = lambda n: number(n, machine)
    rnd = random.Random(1)
    cases = []
    clone_bits = [1 << b for b in range(32)]
    clone_vals = interesting([0, 0x01200011, 0x003D0F00, 0x003D0F00 & ~0x400, 0x10000 | 0x100 | 17, 0x8000 | 17,
                              S.CLONE_REFUSED, *clone_bits, *[0x01200011 | b for b in clone_bits],
                              *[0x003D0F00 | b for b in clone_bits], *[0x003D0F00 & ~0x400 | b for b in clone_bits]]
                             + [rnd.getrandbits(32) for _ in range(300)])
    cases += [(nr("clone"), [v]) for v in clone_vals]
    ioctl_vals = interesting([0, 0x5401, 0x541B, 0x400C6615, *S.KEY_IOCTLS.values(), *[c ^ 1 for c in S.KEY_IOCTLS.values()]]
                             + [rnd.getrandbits(32) for _ in range(100)])
    cases += [(nr("ioctl"), [3, v]) for v in ioctl_vals]
    prctl_vals = interesting([*range(0, 80), *S.PRCTL_ALLOWED.values(), F.PR_SET_PTRACER, F.PR_SET_VMA, 1 << 20]
                             + [rnd.getrandbits(32) for _ in range(100)])
    cases += [(nr("prctl"), [v, a]) for v in prctl_vals for a in (0, 1)]
    fcntl_vals = interesting([*range(0, 64), *range(1024, 1040), *[c for c, _ in S.FCNTL_REFUSED.values()]]
                             + [rnd.getrandbits(32) for _ in range(100)])
    cases += [(nr("fcntl"), [3, v]) for v in fcntl_vals]
    mmap_vals = interesting([*range(0, 0x40), 0x8000, 0x21 | 0x8000 | 0x10, 0x22, 0x23]
                            + [rnd.getrandbits(32) for _ in range(200)])
    cases += [(nr("mmap"), [0, 4096, 3, v, 0xFFFFFFFFFFFFFFFF, 0]) for v in mmap_vals]
    fall_vals = interesting([*range(0, 0x80)] + [rnd.getrandbits(32) for _ in range(50)])
    cases += [(nr("fallocate"), [3, v, 0, 1 << 30]) for v in fall_vals]
    # SELF_ONLY calls: each required argument and its neighbours, 64-bit
    for name, required in S.SELF_ONLY.items():
        vals = interesting([0, 1, 2, 3, 4242, 0xFFFFFFFF])
        idx = sorted(required)
        for combo in itertools.product(vals, repeat=len(idx)):
            args = [0] * 6
            for i, v in zip(idx, combo):
                args[i] = v
            cases.append((nr(name), args))
    # args of calls nobody looks at must not matter
    for name in ("getpid", "read", "keyctl", "setsid", "chmod", "truncate", "memfd_create"):
        if nr(name) is not None:
            cases += [(nr(name), [rnd.getrandbits(64) for _ in range(6)]) for _ in range(5)]
    # random fuzz on the looked-at calls
    looked = [nr(n) for n in (*S.ARGUMENTS_LOOKED_AT, *S.SELF_ONLY)]
    for _ in range(3000):
        cases.append((rnd.choice(looked), [rnd.choice([rnd.getrandbits(64), rnd.getrandbits(32), rnd.getrandbits(8)])
                                          for _ in range(6)]))
    return cases

def nr_cases(machine):
    native = ARCH[machine]
    cases = [(n, native, []) for n in range(0, 1024)]
    cases += [(n, native, []) for n in (0x3FFFFFFF, 0x40000000, 0x40000000 | 39, 0x40000000 | 512, 0x7FFFFFFF,
                                         0x80000000, 0xFFFFFFFE, 0xFFFFFFFF)]
    cases += [(n, a, []) for a in OTHER_ARCHES if a != native for n in (0, 1, 20, 39, 110, 157, 286, 287, 288)]
    return cases

def verdict(v):
    if v == S.ALLOW: return "ALLOW"
    if v & 0xFFFF0000 == SC.SECCOMP_RET_ERRNO: return errno.errorcode.get(v & 0xFFFF, str(v & 0xFFFF))
    return hex(v)

def main():
    report = {"interpreter_check": {}, "configs": []}
    # the interpreter against the tests' own, hand filter, every number, every policy, x86_64
    for pname, pol in POLICIES.items():
        rows = S.program("x86_64", pol)
        data_mismatch = [n for n in range(1024) if bpf.run(rows, bpf.seccomp_data(n, SC.AUDIT_ARCH["x86_64"]))[0] != ts.run(rows, n)]
        arg_mismatch = [(n, a) for n, a in arg_cases("x86_64")
                        if bpf.run(rows, bpf.seccomp_data(n, SC.AUDIT_ARCH["x86_64"], a))[0] != ts.run(rows, n, args=a)]
        report["interpreter_check"][pname] = {"numbers": len(data_mismatch), "args": len(arg_mismatch)}
    print("interpreter vs tests/test_syscalls.py run():", report["interpreter_check"])
    for machine in ("x86_64", "aarch64"):
        for pname, pol in POLICIES.items():
            hand = S.program(machine, pol)
            for opt in (1, 2):
                lib = build_lsc.build(machine, pol, opt)
                dis, ncases = [], 0
                steps_h, steps_l = {}, {}
                for n, arch, args in nr_cases(machine) + [(n, ARCH[machine], a) for n, a in arg_cases(machine)]:
                    d = bpf.seccomp_data(n, arch, args)
                    vh, sh = bpf.run(hand, d)
                    vl, sl = bpf.run(lib, d)
                    ncases += 1
                    if arch == ARCH[machine] and n < 1024 and not args:
                        steps_h[n], steps_l[n] = sh, sl
                    if vh != vl:
                        dis.append({"nr": n, "arch": hex(arch), "args": [hex(a) for a in args],
                                    "hand": verdict(vh), "libseccomp": verdict(vl)})
                listed = sorted({number(x, machine) for x in NUMBERS if number(x, machine) is not None})
                avg = lambda st: sum(st[n] for n in listed) / len(listed)
                gp = number("getppid", machine)
                cfg = {"machine": machine, "policy": pname, "optimize": opt, "hand_len": len(hand), "lib_len": len(lib),
                       "cases": ncases, "disagreements": dis,
                       "steps_getppid": [steps_h[gp], steps_l[gp]], "steps_read": [steps_h[number("read", machine)], steps_l[number("read", machine)]],
                       "steps_mean_listed": [round(avg(steps_h), 1), round(avg(steps_l), 1)],
                       "steps_max_listed": [max(steps_h[n] for n in listed), max(steps_l[n] for n in listed)],
                       "steps_unlisted_999": [steps_h[999], steps_l[999]]}
                report["configs"].append(cfg)
                print(f"{machine:8} {pname:15} opt={opt} hand={len(hand):4} lib={len(lib):4} cases={ncases} "
                      f"disagree={len(dis)} steps getppid {cfg['steps_getppid']} read {cfg['steps_read']} "
                      f"mean {cfg['steps_mean_listed']} max {cfg['steps_max_listed']} unlisted {cfg['steps_unlisted_999']}")
                for d in dis[:20]:
                    print("   ", d)
    if "--json" in sys.argv:
        json.dump(report, open(sys.argv[sys.argv.index("--json") + 1], "w"), indent=1)

main()
