"""A top-level cell that tries to write where the grader lives: files in the checkout, the hidden suites, build/, the instructor's home and shell start-up file, a .pth in every site directory (it would run in the next grading process), the secret and the gradebook opened for writing, chmod/utime/xattr on the checkout's files, truncate by path: attacks the grader's files; every part keeps full points. Whether anything reached the machine is judged outside (snapshots of the checkout, the venv and the home): what the cell reports includes writes that stayed in the worker's own scratch, where a kept tree's parent folders may appear."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
EXPECT = ["write attempts done"]
ADD = [(None, '''
import glob
import os
import site
import sys

done = []
repo, home = "__REPO__", "__HOME__"
sites = {p for p in [*site.getsitepackages(), *sys.path] if p.endswith("site-packages")}
targets = [f"{repo}/HOSTILE_written.txt", f"{repo}/solutions/week7_attention/suites/HOSTILE_written.py",
           f"{repo}/build/HOSTILE_written.txt", f"{home}/HOSTILE_written.txt",
           *[f"{p}/HOSTILE_written.pth" for p in sites]]
for path in targets:
    try:
        with open(path, "w") as handle:
            handle.write("import os; os.system('echo HOSTILE_pth_ran')\\n")
        done.append(f"created {path}")
    except OSError:
        pass
for path in [f"{home}/.bashrc", f"{repo}/build/secret.key", f"{repo}/build/course/gradebook.db", f"{repo}/README.md"]:
    try:
        with open(path, "ab"):
            done.append(f"opened for writing {path}")
    except OSError:
        pass
for path in [*glob.glob(f"{repo}/solutions/week7_attention/suites/*.py")[:3], f"{repo}/build/secret.key", f"{repo}/Makefile"]:
    for what, act in (("chmod", lambda p: os.chmod(p, 0o777)), ("utime", lambda p: os.utime(p, (0, 0))),
                      ("xattr", lambda p: os.setxattr(p, "user.hostile", b"note")),
                      ("truncate", lambda p: os.truncate(p, 0))):
        try:
            if os.path.exists(path):
                act(path)
                done.append(f"{what} {path}")
        except OSError:
            pass
raise RuntimeError(f"write attempts done: {len(done)} in the worker's view: " + "; ".join(done))
''')]
