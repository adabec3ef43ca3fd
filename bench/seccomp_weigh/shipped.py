"""What 'shipped as data' would ship: each program libseccomp builds for the plan's policies, its size, and whether
the bytes are reproducible (same build twice; rules added in another order). Writes them under data/.
PYTHONPATH=. .venv/bin/python shipped.py"""
import hashlib, os, random, struct, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build_lsc
from autograder.sandbox import syscalls as S
POL = {"namespaces": S.Policy(),
       "landlock-abi3": S.Policy(metadata=False, truncate_by_path=True, self_only=True, own_group=False),
       "landlock-abi2": S.Policy(metadata=False, truncate_by_path=False, self_only=True, own_group=False)}
os.makedirs("bench/seccomp_weigh/data", exist_ok=True)
pack = lambda rows: b"".join(struct.pack("<HBBI", *r) for r in rows)
total = {1: 0, 2: 0}
hand_total = 0
for m in ("x86_64", "aarch64"):
    for p, pol in POL.items():
        for opt in (1, 2):
            blob = pack(build_lsc.build(m, pol, opt))
            again = pack(build_lsc.build(m, pol, opt))
            # the same policy, the allow-list's names added in another order
            saved = dict(S.ALLOWED)
            try:
                names = [n for g in saved.values() for n in g.split()]
                random.Random(7).shuffle(names)
                S.ALLOWED.clear(); S.ALLOWED["all"] = " ".join(names)
                shuffled = pack(build_lsc.build(m, pol, opt))
            finally:
                S.ALLOWED.clear(); S.ALLOWED.update(saved)
            name = f"{m}-{p}-{'priority' if opt == 1 else 'tree'}.bpf"
            open(f"bench/seccomp_weigh/data/{name}", "wb").write(blob)
            total[opt] += len(blob)
            print(f"{name:34} {len(blob):5} bytes  sha256 {hashlib.sha256(blob).hexdigest()[:16]}  "
                  f"rebuilt identical: {blob == again}  other rule order identical: {blob == shuffled}")
        hand_total += len(pack(S.program(m, pol)))
print(f"total, 6 programs: priority {total[1]} bytes, tree {total[2]} bytes; the hand programs would be {hand_total} bytes")
