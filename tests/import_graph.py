"""The import graph of the product's packages (autograder/, solutions/, bench/), read with ast.

Every import counts, wherever it stands (top level or inside a function): a deferred import
hides a circle from the interpreter, not from the reader who must change both ends.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("autograder", "solutions", "bench")


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path = ROOT, packages: tuple[str, ...] = PRODUCT) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``, by dotted name."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            found[module_name(path, root)] = path
    return found


def _resolve(current: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = current.split(".") if is_package else current.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imported(path: Path, name: str) -> set[str]:
    """Dotted names ``name`` (the module at ``path``) imports: modules, and ``module.attr`` for from-imports.

    ``from package import submodule`` names the submodule alone: the package's own __init__ is
    not a dependency of its submodules (any submodule import runs it).
    """
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(name, is_package, node)
            names.update(f"{base}.{alias.name}" if alias.name != "*" else base for alias in node.names)
    return names


def graph(root: Path = ROOT, packages: tuple[str, ...] = PRODUCT) -> dict[str, set[str]]:
    """Module -> the product modules it imports (a from-import of a submodule counts as that submodule)."""
    known = modules(root, packages)
    edges = {}
    for name, path in known.items():
        targets = set()
        for dotted in imported(path, name):
            # The longest known module that the name is or lies inside: `from . import catalog`
            # is the submodule catalog, `from .catalog import describe` is catalog too.
            parts = dotted.split(".")
            for cut in range(len(parts), 0, -1):
                candidate = ".".join(parts[:cut])
                if candidate in known:
                    if candidate != name:
                        targets.add(candidate)
                    break
        edges[name] = targets
    return edges


def external_imports(root: Path = ROOT, packages: tuple[str, ...] = PRODUCT) -> dict[str, set[str]]:
    """Module -> every dotted name it imports (to find imports of packages outside the product)."""
    return {name: imported(path, name) for name, path in modules(root, packages).items()}


def circles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan), each a circle of imports."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found, key=sorted)


if __name__ == "__main__":
    for circle in circles(graph()):
        print(" <-> ".join(sorted(circle)))
