"""A classic-BPF interpreter for seccomp programs: every opcode libseccomp 2.5 and the hand filter emit
(LD W ABS, LD/LDX MEM, ST/STX, ALU AND/OR/etc with K and X, JA, JEQ/JGT/JGE/JSET with K and X, RET K/A, TAX/TXA).
Returns (verdict, instructions executed)."""
import struct

DATA_NR, DATA_ARCH, DATA_ARGS = 0, 4, 16


def seccomp_data(nr, arch, args=(), ip=0):
    args = [*args, *[0] * (6 - len(args))]
    return struct.pack("<iIQ6Q", nr if nr < 2**31 else nr - 2**32, arch, ip, *[a & 0xFFFFFFFFFFFFFFFF for a in args])


def run(rows, data):
    M = [0] * 16
    A = X = 0
    pc = steps = 0
    n = len(rows)
    while True:
        if pc >= n:
            raise AssertionError("ran off the end")
        code, jt, jf, k = rows[pc]
        steps += 1
        cls = code & 0x07
        if cls == 0x00:  # LD
            mode, size = code & 0xE0, code & 0x18
            if mode == 0x20 and size == 0x00:
                assert k % 4 == 0 and k + 4 <= len(data), k
                A = struct.unpack_from("<I", data, k)[0]
            elif mode == 0x60:
                A = M[k]
            elif mode == 0x00:
                A = k
            elif mode == 0x80:  # LEN
                A = len(data)
            else:
                raise AssertionError(f"LD {code:#x}")
        elif cls == 0x01:  # LDX
            mode = code & 0xE0
            if mode == 0x60:
                X = M[k]
            elif mode == 0x00:
                X = k
            elif mode == 0x80:
                X = len(data)
            else:
                raise AssertionError(f"LDX {code:#x}")
        elif cls == 0x02:
            M[k] = A
        elif cls == 0x03:
            M[k] = X
        elif cls == 0x04:  # ALU
            op, src = code & 0xF0, code & 0x08
            v = X if src else k
            A = {0x00: lambda: A + v, 0x10: lambda: A - v, 0x20: lambda: A * v, 0x30: lambda: A // v,
                 0x40: lambda: A | v, 0x50: lambda: A & v, 0x60: lambda: A << v, 0x70: lambda: A >> v,
                 0x80: lambda: -A, 0x90: lambda: A % v, 0xA0: lambda: A ^ v}[op]() & 0xFFFFFFFF
        elif cls == 0x05:  # JMP
            op, src = code & 0xF0, code & 0x08
            v = X if src else k
            if op == 0x00:
                pc += k
            else:
                taken = {0x10: A == v, 0x20: A > v, 0x30: A >= v, 0x40: bool(A & v)}[op]
                pc += jt if taken else jf
        elif cls == 0x06:  # RET
            return (A if code & 0x18 == 0x10 else k), steps
        elif cls == 0x07:  # MISC
            if code & 0xF8 == 0x00:
                X = A
            else:
                A = X
        pc += 1
