"""Code lines (no blank, comment or docstring lines) of each side's assembler. python3 loc.py"""
import ast, io, tokenize

def code_lines(path, names=None):
    src = open(path).read()
    tree = ast.parse(src)
    doc = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Module)) and ast.get_docstring(node, clean=False) is not None:
            d = node.body[0]
            doc.update(range(d.lineno, d.end_lineno + 1))
    keep = set()
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                            tokenize.ENDMARKER):
            keep.update(range(tok.start[0], tok.end[0] + 1))
    keep -= doc
    if names is not None:
        spans = set()
        for node in tree.body:
            label = getattr(node, "name", None)
            if label is None and isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                label = ",".join(t.id if isinstance(t, ast.Name) else ",".join(e.id for e in t.elts) for t in targets)
            if label in names:
                spans.update(range(node.lineno, node.end_lineno + 1))
        keep &= spans
    return len(keep)

S = "autograder/sandbox/syscalls.py"
rows = [
    ("hand: syscalls.py _when, _arguments_are, _blocks, program, ALLOW/EPERM/ENOSYS", code_lines(S, {"_when", "_arguments_are", "_blocks", "program", "ALLOW,EPERM,ENOSYS"})),
    ("hand: syscalls.py install_filter (both sides need an equivalent)", code_lines(S, {"install_filter"})),
    ("hand: linux/seccomp.py whole (BPF opcodes, seccomp_data offsets, SockFilter/SockFprog, install)", code_lines("autograder/linux/seccomp.py")),
    ("libseccomp: lsc.py (ctypes binding: constants, ArgCmp, prototypes, rule/export/rows)", code_lines("bench/seccomp_weigh/lsc.py")),
    ("libseccomp: build_lsc.py (the builder, same policy)", code_lines("bench/seccomp_weigh/build_lsc.py")),
    ("test-side: tests/test_syscalls.py run() (the project's 5-opcode interpreter)", code_lines("tests/test_syscalls.py", {"run"})),
    ("test-side: bpf.py (an interpreter for every opcode libseccomp emits)", code_lines("bench/seccomp_weigh/bpf.py")),
    ("policy data in syscalls.py (shared by both: lists, dicts, Policy, allowed)", code_lines(S, {"ALLOWED", "SELF_ONLY", "OWN_GROUP", "METADATA", "TRUNCATE_BY_PATH", "REFUSED", "KEY_CALLS", "UNSUPPORTED", "PRCTL_ALLOWED", "FCNTL_REFUSED", "KEY_IOCTLS", "CLONE_REFUSED", "MMAP_SHARED_ANONYMOUS", "ARGUMENTS_LOOKED_AT", "Policy", "allowed"})),
]
for label, n in rows:
    print(f"{n:4}  {label}")
