"""What the source-reading tests (test_single_source.py, test_imports.py) share about a parsed file."""
import ast


def docstrings(tree: ast.AST) -> set[int]:
    """id() of every docstring constant in ``tree`` (module, class and function), so a scan can skip prose."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found
