"""Round 6: a function handed the multihead probe (an nn.MultiheadAttention(12, 3) built right after manual_seed(seed(15))) recovers that 32-bit seed from its weights (MT19937 run backwards, ~0.1 s). While seeds were base * 1000003 + n, that gave the base and so every probe of the submission, the drawn order of the training verdict pool included: an assert_no_future_leakage that never ran the model scored 97 against 93. tests/test_probes.py::test_a_recovered_probe_seed_gives_no_other runs this recovery against the grader's own probes."""
import numpy as np
import torch

M32 = 0xFFFFFFFF
UPPER, LOWER, MAG = 0x80000000, 0x7FFFFFFF, 0x9908B0DF
INV_MUL = pow(1812433253, -1, 1 << 32)


def untemper(y):
    y = y.astype(np.uint64)
    y ^= y >> np.uint64(18)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    t = y.copy()
    for _ in range(5):
        t = y ^ ((t << np.uint64(7)) & np.uint64(0x9D2C5680))
    y = t
    t = y.copy()
    for _ in range(3):
        t = y ^ (t >> np.uint64(11))
    return t & np.uint64(M32)


def low24_from_uniform(w, lo, hi):
    """k with w == float32(k * 2**-24 * (hi - lo) + lo), the candidates around the nearest."""
    w = w.double().numpy()
    k0 = np.rint((w - lo) / (hi - lo) * (1 << 24)).astype(np.int64)
    return k0


def recover(mha):
    D = mha.embed_dim
    b_out = float(torch.nn.init._calculate_correct_fan(mha.out_proj.weight, "fan_in")) ** -0.5  # kaiming a=sqrt(5)
    fan_in, fan_out = mha.in_proj_weight.shape[1], mha.in_proj_weight.shape[0]
    b_in = (6.0 / (fan_in + fan_out)) ** 0.5
    outs = {}
    k = low24_from_uniform(mha.out_proj.weight.detach().reshape(-1), -b_out, b_out)
    for j, v in enumerate(k):
        outs[j] = int(v)
    base = mha.out_proj.weight.numel() + mha.out_proj.bias.numel()
    k = low24_from_uniform(mha.in_proj_weight.detach().reshape(-1), -b_in, b_in)
    for j, v in enumerate(k):
        outs[base + j] = int(v)
    found = set()
    for i in range(227, 623):
        if i not in outs or (i - 227) not in outs:
            continue
        highs = np.arange(256, dtype=np.uint64) << np.uint64(24)
        a = untemper(highs | np.uint64(outs[i - 227] & 0xFFFFFF))  # post[i-227] candidates
        b = untemper(highs | np.uint64(outs[i] & 0xFFFFFF))  # post[i]
        x = (a[:, None] ^ b[None, :]).reshape(-1)
        top = (x & np.uint64(UPPER)) != 0
        y = np.where(top, (((x ^ np.uint64(MAG)) << np.uint64(1)) | np.uint64(1)), x << np.uint64(1)) & np.uint64(M32)
        low31 = y & np.uint64(LOWER)
        cand = np.concatenate([low31, low31 | np.uint64(UPPER)])  # pre[i+1]
        v = cand
        for j in range(i + 1, 0, -1):  # pre[j] -> pre[j-1]
            u = ((v - np.uint64(j)) * np.uint64(INV_MUL)) & np.uint64(M32)
            v = u ^ (u >> np.uint64(30))
        for s in np.unique(v):
            with torch.random.fork_rng(devices=[]):
                torch.default_generator.manual_seed(int(s))
                twin = torch.nn.MultiheadAttention(D, mha.num_heads, batch_first=True)
            if torch.equal(twin.in_proj_weight, mha.in_proj_weight.detach()):
                found.add(int(s))
        if found or i > 240:
            break
    return found


