"""How libseccomp 2.5.4 resolves an unconditional rule and conditional rules of another action on one syscall."""
import errno, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lsc, bpf
print("libseccomp", lsc.version())
X = lsc.ARCH_X86_64
def trial(label, adds):
    ctx = lsc.LIB.seccomp_init(lsc.ACT_ERRNO(errno.ENOSYS))
    try:
        for a in adds:
            try:
                a(ctx)
            except OSError as e:
                print(label, "rule refused:", e); return
        r = lsc.rows(lsc.export(ctx))
        out = {v: bpf.run(r, bpf.seccomp_data(157, X, [v]))[0] for v in (1, 4, 15)}
        print(label, len(r), {k: hex(v) for k, v in out.items()})
    finally:
        lsc.LIB.seccomp_release(ctx)
EQ32 = lambda i, v: (i, lsc.CMP_MASKED_EQ, 0xFFFFFFFF, v)
A, P = lsc.ACT_ALLOW, lsc.ACT_ERRNO(errno.EPERM)
trial("uncond EPERM then ALLOW if 1|15", [lambda c: lsc.rule(c, P, 157), lambda c: lsc.rule(c, A, 157, EQ32(0, 1)), lambda c: lsc.rule(c, A, 157, EQ32(0, 15))])
trial("ALLOW if 1|15 then uncond EPERM", [lambda c: lsc.rule(c, A, 157, EQ32(0, 1)), lambda c: lsc.rule(c, A, 157, EQ32(0, 15)), lambda c: lsc.rule(c, P, 157)])
trial("ALLOW if 1, EPERM if !=1 and !=15 (two cmps on A0)", [lambda c: lsc.rule(c, A, 157, EQ32(0, 1)), lambda c: lsc.rule(c, P, 157, (0, lsc.CMP_NE, 1, 0), (0, lsc.CMP_NE, 15, 0))])
trial("uncond ALLOW then EPERM if 4", [lambda c: lsc.rule(c, A, 157), lambda c: lsc.rule(c, P, 157, EQ32(0, 4))])
trial("EPERM if 4 then uncond ALLOW", [lambda c: lsc.rule(c, P, 157, EQ32(0, 4)), lambda c: lsc.rule(c, A, 157)])
ANY = lambda i: (i, lsc.CMP_MASKED_EQ, 0, 0)  # (arg & 0) == 0: always true, yet a comparison
trial("catch-all EPERM via A0&0==0, ALLOW if 1|15", [lambda c: lsc.rule(c, P, 157, ANY(0)), lambda c: lsc.rule(c, A, 157, EQ32(0, 1)), lambda c: lsc.rule(c, A, 157, EQ32(0, 15))])
trial("ALLOW if 1|15, catch-all EPERM via A0&0==0", [lambda c: lsc.rule(c, A, 157, EQ32(0, 1)), lambda c: lsc.rule(c, A, 157, EQ32(0, 15)), lambda c: lsc.rule(c, P, 157, ANY(0))])
trial("catch-all EPERM via A5&0==0, ALLOW if 1|15", [lambda c: lsc.rule(c, P, 157, ANY(5)), lambda c: lsc.rule(c, A, 157, EQ32(0, 1)), lambda c: lsc.rule(c, A, 157, EQ32(0, 15))])
trial("catch-all EPERM via A0>=0, ALLOW if 1|15", [lambda c: lsc.rule(c, P, 157, (0, lsc.CMP_GE, 0, 0)), lambda c: lsc.rule(c, A, 157, EQ32(0, 1)), lambda c: lsc.rule(c, A, 157, EQ32(0, 15))])
trial("ALLOW if 1|15, catch-all EPERM via A0 GE 0", [lambda c: lsc.rule(c, A, 157, EQ32(0, 1)), lambda c: lsc.rule(c, A, 157, EQ32(0, 15)), lambda c: lsc.rule(c, P, 157, (0, lsc.CMP_GE, 0, 0))])
trial("uncond ALLOW with EPERM via A0 EQ 4 (exact 64)", [lambda c: lsc.rule(c, P, 157, (0, lsc.CMP_EQ, 4, 0)), lambda c: lsc.rule(c, A, 157, ANY(0))])
