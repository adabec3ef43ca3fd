"""autograder/linux: the one place the product reaches Linux through ctypes.

Two halves. The guards read every product module with ast (nothing imported) and fail where the scatter comes
back: a second handle on the C library, a constant of the layer defined again, a bare number passed to prctl or
syscall, errno read by hand. Then the layer itself: its system-call table against this machine's kernel (live
calls, and every number against the kernel headers where they are installed), its flags against the headers'
own values (compiled with the C compiler, where there is one), prctl, syscall, seccomp and Landlock for real.
"""
import ast
import errno
import os
import platform
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from autograder.assignment import ROOT
from autograder.linux import flags, landlock, libc, numbers, seccomp

PACKAGE = ROOT / "autograder"
LAYER = PACKAGE / "linux"


# ---- the guards -------------------------------------------------------------------------------------------
def _modules(under: Path) -> list[Path]:
    return sorted(p for p in under.rglob("*.py") if "__pycache__" not in p.parts)


def _product_modules() -> list[Path]:
    return [p for p in _modules(PACKAGE) if LAYER not in p.parents]


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _module_level(tree: ast.Module) -> Iterator[ast.AST]:
    """Every node that runs when the module is imported: not the bodies of functions, classes or lambdas."""
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _names(target: ast.AST) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _names(element)
    elif isinstance(target, ast.Starred):
        yield from _names(target.value)


def _assigned(tree: ast.Module) -> Iterator[tuple[str, int]]:
    """(name, line) of every module-level assignment."""
    for node in _module_level(tree):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        else:
            continue
        for target in targets:
            for name in _names(target):
                yield name, node.lineno


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _calls(tree: ast.Module) -> Iterator[ast.Call]:
    return (node for node in ast.walk(tree) if isinstance(node, ast.Call))


def _first_argument(call: ast.Call, keyword: str) -> ast.AST | None:
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _opens_libc(call: ast.Call) -> bool:
    """CDLL(None), CDLL("libc.so.6"), CDLL(find_library("c")), cdll.LoadLibrary(...) of the same."""
    if _called(call) not in ("CDLL", "PyDLL", "LoadLibrary"):
        return False
    library = _first_argument(call, "name")
    if isinstance(library, ast.Constant):
        return library.value is None or "libc" in str(library.value)
    return isinstance(library, ast.Call) and _called(library) == "find_library"


def _is_literal_int(node: ast.AST | None) -> bool:
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _where(path: Path, line: int, what: str) -> str:
    return f"{path.relative_to(ROOT)}:{line} {what}"


def _layer_names() -> dict[str, list[str]]:
    """Every name the layer's modules assign at module level -> the modules that do."""
    names: dict[str, list[str]] = {}
    for path in _modules(LAYER):
        for name, _ in _assigned(_parse(path)):
            if not (name.startswith("__") and name.endswith("__")):
                names.setdefault(name, []).append(path.name)
    return names


def test_the_layer_opens_the_c_library_once_and_no_other_module_does():
    offenders, in_layer = [], []
    for path in _modules(PACKAGE):
        for call in _calls(_parse(path)):
            if _opens_libc(call):
                (in_layer if LAYER in path.parents else offenders).append(_where(path, call.lineno, "opens libc"))
    assert not offenders, f"use autograder.linux.libc.LIBC (one handle, use_errno): {offenders}"
    assert len(in_layer) == 1, in_layer


def test_each_linux_constant_is_defined_once_in_the_layer():
    twice = {name: modules for name, modules in _layer_names().items() if len(modules) > 1}
    assert not twice, twice


def test_no_product_module_defines_a_name_of_the_linux_layer_again():
    """A second PR_SET_NO_NEW_PRIVS = 38 (or CLONE_NEWNS, MS_BIND, ...): import it from autograder.linux."""
    layer = _layer_names()
    offenders = [_where(path, line, f"{name} (autograder/linux/{layer[name][0]})")
                 for path in _product_modules() for name, line in _assigned(_parse(path)) if name in layer]
    assert not offenders, offenders


def test_no_bare_number_is_passed_to_prctl_or_syscall():
    offenders = [_where(path, call.lineno, f"{_called(call)}({ast.unparse(call.args[0])}, ...)")
                 for path in _product_modules() for call in _calls(_parse(path))
                 if _called(call) in ("prctl", "syscall") and call.args and _is_literal_int(call.args[0])]
    assert not offenders, f"name the option or call (autograder.linux.flags, numbers): {offenders}"


def test_errno_is_read_in_the_layer_alone():
    """A failed call's errno becomes an OSError in autograder.linux.libc.check, the one place that reads it."""
    offenders = [_where(path, call.lineno, "ctypes.get_errno()") for path in _product_modules()
                 for call in _calls(_parse(path)) if _called(call) == "get_errno"]
    assert not offenders, offenders


def test_the_guards_see_what_they_look_for(tmp_path):
    source = ("import ctypes\nfrom ctypes.util import find_library\nPR_SET_NO_NEW_PRIVS = 38\n"
              "A, (B, MS_BIND) = 1, (2, 4096)\nlibc = ctypes.CDLL(None, use_errno=True)\n"
              "other = ctypes.CDLL(find_library('c'))\ndef f():\n    LOCAL = 1\n    libc.prctl(38, 1, 0, 0, 0)\n"
              "    return ctypes.get_errno()\n")
    tree = ast.parse(source)
    assert {name for name, _ in _assigned(tree)} == {"PR_SET_NO_NEW_PRIVS", "A", "B", "MS_BIND", "libc", "other"}
    calls = list(_calls(tree))
    assert sum(map(_opens_libc, calls)) == 2
    assert [_called(c) for c in calls if _called(c) == "prctl" and _is_literal_int(c.args[0])] == ["prctl"]
    assert {"PR_SET_NO_NEW_PRIVS", "MS_BIND"} <= set(_layer_names())


# ---- the layer ---------------------------------------------------------------------------------------------
MACHINE = platform.machine()
on_a_known_machine = pytest.mark.skipif(MACHINE not in numbers.MACHINES, reason=f"no syscall table for {MACHINE}")


def _in_child(test) -> int:
    """Run ``test()`` in a forked child; its exit status (0: it returned)."""
    pid = os.fork()
    if pid == 0:
        try:
            test()
            code = 0
        except BaseException:  # noqa: BLE001 - any failure is the answer
            code = 1
        os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


@on_a_known_machine
def test_the_table_names_this_machines_calls():
    assert libc.LIBC.syscall(numbers.number("getpid")) == os.getpid()
    assert libc.syscall("getpid") == os.getpid()
    assert libc.syscall("getppid") == os.getppid()
    assert libc.syscall("getuid") == os.getuid() and libc.syscall("getegid") == os.getegid()
    assert libc.syscall("gettid") == threading.get_native_id()
    assert numbers.number("getpid", "x86_64") == 39 and numbers.number("getpid", "aarch64") == 172
    assert numbers.number("open", "aarch64") is None and numbers.number("getpid", "riscv64") is None


def _header_numbers(path: Path) -> dict[str, int]:
    """__NR_name -> number of a unistd header, its 64-bit names where it has both (asm-generic's __NR3264_)."""
    text = path.read_text()
    generic = {m[1]: int(m[2]) for m in re.finditer(r"#define __NR3264_(\w+)\s+(\d+)", text)}
    found = {m[1]: int(m[2]) for m in re.finditer(r"#define __NR_(\w+)\s+(\d+)", text)}
    for m in re.finditer(r"#define __NR_(\w+)\s+__NR3264_(\w+)", text):
        if m[2] in generic:  # else a call the generic table leaves to the architecture (stat, lstat)
            found.setdefault(m[1], generic[m[2]])
    return found


@pytest.mark.parametrize("machine, header", [("x86_64", "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
                                             ("aarch64", "/usr/include/asm-generic/unistd.h")])
def test_every_number_agrees_with_the_kernel_headers(machine, header):
    """x86_64's own table; aarch64 uses the generic one (its 64-bit names)."""
    if not os.path.exists(header):
        pytest.skip(f"no {header} (the kernel headers: linux-libc-dev)")
    known = _header_numbers(Path(header))
    column = numbers.MACHINES.index(machine)
    wrong = {name: (pair[column], known.get(name)) for name, pair in numbers.NUMBERS.items()
             if known.get(name) != pair[column]}  # None on both sides: the architecture has no such call
    assert not wrong, f"{machine}: table, header: {wrong}"


# Constants with no macro of their own name in the headers: the C expression that gives the value.
C_EXPRESSIONS = {
    "LINUX_CAPABILITY_VERSION_3": "_LINUX_CAPABILITY_VERSION_3",
    "X32_SYSCALL_BIT": "__X32_SYSCALL_BIT",
    "BPF_LD_W_ABS": "BPF_LD | BPF_W | BPF_ABS", "BPF_JEQ_K": "BPF_JMP | BPF_JEQ | BPF_K",
    "BPF_JGE_K": "BPF_JMP | BPF_JGE | BPF_K", "BPF_JSET_K": "BPF_JMP | BPF_JSET | BPF_K",
    "BPF_RET_K": "BPF_RET | BPF_K",
    "SECCOMP_DATA_NR": "offsetof(struct seccomp_data, nr)", "SECCOMP_DATA_ARCH": "offsetof(struct seccomp_data, arch)",
    "SECCOMP_DATA_ARGS": "offsetof(struct seccomp_data, args)",
    "CLONE_NEW_FLAGS": "CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID"
                       " | CLONE_NEWNET",
    "FILE_RIGHTS": None,  # the kernel's own ACCESS_FILE is not in its uapi headers
}
# Values of a C enum (no #ifdef sees them): a macro of the same header's age to test for instead.
ENUM_GUARDS = {"LANDLOCK_RULE_PATH_BENEATH": "LANDLOCK_CREATE_RULESET_VERSION"}
C_HEADERS = ["stddef.h", "stdio.h", "fcntl.h", "sys/mount.h", "linux/prctl.h", "linux/securebits.h",
             "linux/capability.h", "linux/sched.h", "linux/keyctl.h", "linux/fscrypt.h", "linux/seccomp.h",
             "linux/filter.h", "linux/audit.h", "asm/unistd.h", "linux/landlock.h", "linux/fs.h", "linux/fsverity.h"]


def _constants() -> dict[str, int]:
    found = {}
    for module in (flags, seccomp, landlock):
        found.update({name: value for name, value in vars(module).items()
                      if name.isupper() and type(value) is int and not name.startswith("_")})
    found.update({f"AUDIT_ARCH_{machine.upper()}": arch for machine, arch in seccomp.AUDIT_ARCH.items()})
    return found


def test_every_flag_agrees_with_the_kernel_headers(tmp_path):
    """Each constant against the headers' value under the same name (or C_EXPRESSIONS'); the constants these
    headers are too old to have (a newer ABI's) are skipped."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or not os.path.exists("/usr/include/linux/prctl.h"):
        pytest.skip("no C compiler or kernel headers to check the flags against")
    lines = ["#define _GNU_SOURCE", *[f"#include <{h}>" for h in C_HEADERS], "int main(void) {"]
    for name in _constants():
        expression = C_EXPRESSIONS.get(name, name)
        if expression is None:
            continue
        first = ENUM_GUARDS.get(name, expression.split()[0])  # absent from headers older than the constant
        guard = "1" if expression.startswith("offsetof") else f"defined({first})"
        lines += [f"#if {guard}", f'    printf("%s %llu\\n", "{name}", (unsigned long long)({expression}));',
                  "#endif"]
    source = tmp_path / "flags.c"
    source.write_text("\n".join([*lines, "    return 0;", "}"]) + "\n")
    subprocess.run([cc, "-o", str(tmp_path / "flags"), str(source)], check=True, capture_output=True)
    printed = subprocess.run([str(tmp_path / "flags")], check=True, capture_output=True, text=True).stdout
    headers = {name: int(value) for name, value in (line.split() for line in printed.splitlines())}
    ours = _constants()
    wrong = {name: (ours[name], value) for name, value in headers.items() if ours[name] != value}
    assert not wrong, f"ours, the headers': {wrong}"
    assert {"PR_SET_NO_NEW_PRIVS", "CLONE_NEWUSER", "MS_BIND", "SECCOMP_RET_ERRNO", "BPF_LD_W_ABS",
            "LANDLOCK_ACCESS_FS_EXECUTE", "LANDLOCK_RULE_PATH_BENEATH", "F_OFD_SETLK", "FS_IOC_ADD_ENCRYPTION_KEY",
            "FS_IOC_SETFLAGS", "FS_IOC_FSSETXATTR", "FS_IOC_ENABLE_VERITY"} <= set(headers), headers


def test_prctl_answers_and_raises_with_the_errno():
    assert libc.prctl(flags.PR_GET_NO_NEW_PRIVS) in (0, 1)
    with pytest.raises(OSError) as raised:
        libc.prctl(0x7FFF_FFFF)  # no such option
    assert raised.value.errno == errno.EINVAL

    def no_new_privs():
        libc.prctl(flags.PR_SET_NO_NEW_PRIVS, 1)
        assert libc.prctl(flags.PR_GET_NO_NEW_PRIVS) == 1

    assert _in_child(no_new_privs) == 0


@on_a_known_machine
def test_syscall_raises_with_the_errno(monkeypatch):
    with pytest.raises(OSError) as raised:
        libc.syscall("close", -1)
    assert raised.value.errno == errno.EBADF
    monkeypatch.setattr(libc, "number", lambda name: None)
    with pytest.raises(OSError) as raised:
        libc.syscall("getpid")
    assert raised.value.errno == errno.ENOSYS


@on_a_known_machine
def test_a_seccomp_filter_installs_and_answers():
    def allow_all_but_getppid():
        nr = numbers.number("getppid")
        seccomp.install([(seccomp.BPF_LD_W_ABS, 0, 0, seccomp.SECCOMP_DATA_NR), (seccomp.BPF_JEQ_K, 0, 1, nr),
                         (seccomp.BPF_RET_K, 0, 0, seccomp.SECCOMP_RET_ERRNO | errno.EPERM),
                         (seccomp.BPF_RET_K, 0, 0, seccomp.SECCOMP_RET_ALLOW)])
        assert libc.prctl(flags.PR_GET_NO_NEW_PRIVS) == 1 and libc.prctl(flags.PR_GET_SECCOMP) == 2
        with pytest.raises(OSError) as raised:
            libc.syscall("getppid")
        assert raised.value.errno == errno.EPERM

    assert _in_child(allow_all_but_getppid) == 0


@on_a_known_machine
def test_landlock_rights_by_abi_and_a_ruleset():
    assert landlock.fs_rights(1) == (1 << 13) - 1 and landlock.fs_rights(4) == landlock.fs_rights(3)
    assert landlock.fs_rights(7) == landlock.fs_rights(5) == (1 << 16) - 1
    assert [landlock.ruleset_size(abi) for abi in (1, 4, 6)] == [8, 16, 24]
    abi = landlock.abi_version()
    if abi < 1:
        pytest.skip("no Landlock in this kernel")

    def read_only_beneath_usr():
        ruleset = landlock.create_ruleset(landlock.RulesetAttr(landlock.fs_rights(abi), 0, 0), abi)
        usr = os.open("/usr", os.O_PATH)
        landlock.add_path_rule(ruleset, usr, landlock.LANDLOCK_ACCESS_FS_READ_DIR)
        libc.prctl(flags.PR_SET_NO_NEW_PRIVS, 1)
        landlock.restrict_self(ruleset)
        os.listdir("/usr")
        with pytest.raises(PermissionError):
            os.listdir("/")

    assert _in_child(read_only_beneath_usr) == 0
