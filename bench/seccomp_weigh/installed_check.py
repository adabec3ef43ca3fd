"""tests/test_syscalls.py's CHILD script (every refusal and everything a notebook needs, torch included), run with
libseccomp's program installed instead of the hand one; prints whether its output equals the test's expectation.
PYTHONPATH=. .venv/bin/python installed_check.py"""
import importlib.util, os, subprocess, sys
spec = importlib.util.spec_from_file_location("ts", "tests/test_syscalls.py")
ts = importlib.util.module_from_spec(spec); spec.loader.exec_module(ts)
PRELUDE = r"""
import os
import sys, platform
sys.path.insert(0, "bench/seccomp_weigh")
import build_lsc
from autograder.sandbox import syscalls
from autograder.linux import seccomp
def install_filter(policy=syscalls.Policy()):
    seccomp.install(build_lsc.build(platform.machine(), policy, OPT))
syscalls.install_filter = install_filter
"""
for opt in (1, 2):
    for mode in ("namespaces", "landlock"):
        code = PRELUDE.replace("OPT", str(opt)) + ts.CHILD
        r = subprocess.run([sys.executable, "-c", code, mode], cwd=".", capture_output=True, text=True, timeout=300)
        lines = r.stdout.splitlines()
        expected = ts.child_lines(mode)  # the test's own expectation
        print(f"libseccomp optimize={opt} mode={mode}: rc={r.returncode} same as the test expects: {lines == expected}")
        if lines != expected:
            print(r.stderr[-2000:]); print([(a, b) for a, b in zip(lines, expected) if a != b])
