"""Not the product: the hand program re-laid-out, to attribute timing differences. The head and the argument
blocks are the hand filter's own rows; the plain lists become one JEQ each that jumps forward to a shared RET
(as libseccomp lays them out), so a non-matching number falls through instead of jumping over a RET."""
from autograder.sandbox import syscalls as S
from autograder.linux.seccomp import BPF_JEQ_K, BPF_RET_K
from autograder.linux.numbers import number


def shared_ret(machine, policy=S.Policy()):
    full = S.program(machine, policy)
    plain_allow = [number(n, machine) for n in S.allowed(policy) if n not in S.ARGUMENTS_LOOKED_AT
                   and number(n, machine) is not None]
    refused = [number(n, machine) for n in S.REFUSED + (() if policy.metadata else S.METADATA)
               + (() if policy.own_group else S.OWN_GROUP) if number(n, machine) is not None]
    # the prefix: everything before the first plain-allow block (head + argument blocks)
    n_plain = 2 * (len(plain_allow) + len(refused)) + 1
    prefix = full[:len(full) - n_plain]
    assert all(r[0] == BPF_RET_K or r[0] == BPF_JEQ_K for r in full[len(prefix):])
    body = []
    tests = [(nr, "allow") for nr in plain_allow] + [(nr, "eperm") for nr in refused]
    for i, (nr, what) in enumerate(tests):
        left = len(tests) - i - 1  # JEQs after this one
        # tail: RET ENOSYS, RET ALLOW, RET EPERM
        jt = left + (1 if what == "allow" else 2)
        assert jt < 256, jt
        body.append((BPF_JEQ_K, jt, 0, nr))
    return prefix + body + [(BPF_RET_K, 0, 0, S.ENOSYS), (BPF_RET_K, 0, 0, S.ALLOW), (BPF_RET_K, 0, 0, S.EPERM)]
