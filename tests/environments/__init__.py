"""Where instructors grade, emulated on this Linux machine as root: each environment is a launcher setting.

    vm-root          root on a Linux VM (all capabilities): today's design
    user             a non-root user: a laptop, a JupyterHub single-user server (uid 1500; user namespaces allowed)
    user-no-userns   a non-root user where the kernel refuses user namespaces (a seccomp filter on the launcher)
    docker-root      a Docker-like container as root: Docker's default capabilities (no CAP_SYS_ADMIN), the
                     namespace, mount and key calls its seccomp profile refuses, /sys/fs/cgroup read-only
    k8s-pod          a Kubernetes-like pod: as docker-root, as uid 1000 with no capabilities (RuntimeDefault)
    locked-down      a non-root user whose kernel offers neither user namespaces nor Landlock: nothing confines

launch.py applies one (a mount namespace of its own, then seccomp, then the uid and capabilities) and
execs the command; machine.py prepares a checkout and a venv the emulated user owns, as on a laptop.
tests/test_environments.py grades through them.
"""
from dataclasses import dataclass
from pathlib import Path

from autograder.sandbox.confinement import Mode

BASE = Path("/tmp/week7-environments")  # the machines' homes and checkouts (machine.py)
# The host venv's site-packages (torch and the rest) as each machine sees it: launch.py binds it here, read-only,
# and the machines' venvs add this path. The checkout's own may lie where the emulated uids cannot go (a clone
# under /root or under any 0700 folder).
SITE_PACKAGES = BASE / "site-packages"


@dataclass(frozen=True)
class Environment:
    name: str
    what: str
    uid: int  # 0: root
    caps: str  # "all", "docker" (Docker's default set) or "none"
    seccomp: str  # "", "docker" (the calls Docker's default profile refuses), "no-userns", "locked" (and no Landlock)
    cgroup_read_only: bool
    expected: Mode  # the confinement the grader must choose there
    own_uid: bool = False  # ... with a uid of the worker's own (mode landlock)


ENVIRONMENTS = {e.name: e for e in (
    Environment("vm-root", "root on a Linux VM", 0, "all", "", False, Mode.NAMESPACES, True),
    Environment("user", "a non-root user (a laptop, JupyterHub)", 1500, "none", "", False, Mode.USER_NAMESPACE),
    Environment("user-no-userns", "a non-root user, user namespaces refused", 1500, "none", "no-userns", False,
                Mode.LANDLOCK),
    Environment("docker-root", "a Docker-like container as root", 0, "docker", "docker", True, Mode.LANDLOCK, True),
    Environment("k8s-pod", "a Kubernetes-like pod as uid 1000", 1000, "none", "docker", True, Mode.LANDLOCK),
    # Nothing can confine a worker: user namespaces and Landlock both refused (a kernel without them).
    Environment("locked-down", "a non-root user without user namespaces or Landlock", 1500, "none", "locked", False,
                Mode.NONE),
)}
