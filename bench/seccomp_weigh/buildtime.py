"""Time to build each filter in-process (medians of interleaved runs), and libseccomp's first use in a fresh process.
PYTHONPATH=. .venv/bin/python buildtime.py"""
import os, platform, statistics, subprocess, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from autograder.sandbox import syscalls as S
M = platform.machine()
POL = {"namespaces": S.Policy(), "landlock": S.Policy(metadata=False, truncate_by_path=True, self_only=True, own_group=False)}

def timed(f, reps):
    t = time.thread_time_ns(); [f() for _ in range(reps)]; return (time.thread_time_ns() - t) / reps / 1e3  # us

if __name__ == "__main__":
    import ctypes, tempfile
    t0 = time.perf_counter_ns()
    import build_lsc
    print(f"import lsc+build_lsc (dlopen libseccomp.so.2, ctypes prototypes): {(time.perf_counter_ns() - t0) / 1e3:.0f} us")
    for pname, pol in POL.items():
        res = {"hand": [], "lsc-priority": [], "lsc-tree": []}
        fns = {"hand": lambda: S.program(M, pol), "lsc-priority": lambda: build_lsc.build(M, pol, 1),
               "lsc-tree": lambda: build_lsc.build(M, pol, 2)}
        for f in fns.values():
            f()  # warm
        for i in range(15):  # interleaved rounds, 20 builds each
            for name, f in fns.items():
                res[name].append(timed(f, 20))
        for name, xs in res.items():
            xs.sort()
            print(f"{pname:10} {name:13} median {statistics.median(xs):8.0f} us CPU/build  min {xs[0]:8.0f}  max {xs[-1]:8.0f}")
    # whole cost in a fresh interpreter (what a worker would pay if it built the filter itself)
    cold = {"hand": "from autograder.sandbox import syscalls as S; import time; t=time.perf_counter_ns(); S.program('%s'); print((time.perf_counter_ns()-t)/1e3)" % M,
            "lsc-priority": "import sys, tempfile, ctypes; sys.path.insert(0,'bench/seccomp_weigh'); from autograder.sandbox import syscalls; import time; t=time.perf_counter_ns(); import build_lsc; build_lsc.build('%s'); print((time.perf_counter_ns()-t)/1e3)" % M}
    out = {k: [] for k in cold}
    for i in range(7):
        for k, code in cold.items():
            out[k].append(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=".").stdout))
    for k, xs in out.items():
        xs.sort()
        print(f"fresh process, first build {k:13}: median {statistics.median(xs):8.0f} us  min {xs[0]:8.0f}  max {xs[-1]:8.0f}"
              + ("  (lsc: includes dlopen of libseccomp and its ctypes prototypes; both exclude importing syscalls.py, ctypes, tempfile)" if k != "hand" else ""))
