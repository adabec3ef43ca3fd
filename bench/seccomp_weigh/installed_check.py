"""tests/test_syscalls.py's CHILD script (every refusal and everything a notebook needs, torch included), run with
libseccomp's program installed instead of the hand one; prints whether its output equals the test's expectation.
PYTHONPATH=. .venv/bin/python installed_check.py"""
import importlib.util, os, subprocess, sys
spec = importlib.util.spec_from_file_location("ts", "tests/test_syscalls.py")
ts = importlib.util.module_from_spec(spec); spec.loader.exec_module(ts)
PRELUDE = r"""
import os
import sys, platform
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
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
        # the test's expected lines, as in test_installed_the_refused_calls_fail_and_nothing_a_notebook_needs_does
        shared = mode == "landlock"
        expected = ["keyctl EPERM", "add_key EPERM", "fscrypt add key EPERM", "other ioctl ENOTTY",
                    "child refused too True", "unshare EPERM", "mount EPERM", "socket EPERM", "socket EPERM",
                    "clone newuser EPERM", "clone3 ENOSYS", "ptrace EPERM",
                    "prlimit other " + ("EPERM" if shared else "ok"), "prlimit self ok",
                    "setpriority user " + ("EPERM" if shared else "not tried"), "setsid " + ("EPERM" if shared else "ok"),
                    "prctl dumpable EPERM 1", "prctl name ok", "posix lock ENOLCK", "ofd lock ENOLCK", "flock ok",
                    "getfl ok", "inotify ENOSYS", "epoll ENOSYS",
                    "chmod EPERM" if shared else "chmod ok", "thread True", "subprocess hi", "shutil copy True",
                    "splice ENOSYS", "shared anonymous EPERM", "private anonymous True", "shared file True",
                    "fallocate keep size ENOTSUP", "posix_fallocate True", "raw thread without its files EPERM",
                    "torch 6.0 True 1.0"]
        print(f"libseccomp optimize={opt} mode={mode}: rc={r.returncode} same as the test expects: {lines == expected}")
        if lines != expected:
            print(r.stderr[-2000:]); print([(a, b) for a, b in zip(lines, expected) if a != b])
