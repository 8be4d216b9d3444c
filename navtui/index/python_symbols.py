"""Python definitions from ``ast``: exact spans, decorators included, methods with their class."""

from __future__ import annotations

import ast
import warnings

from navtui.index.model import Symbol

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _start(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
    return min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])


def _constant_name(node: ast.stmt) -> str | None:
    """``NAME = ...`` / ``NAME: T = ...`` at module level, upper case only (module constants, not locals)."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
    elif isinstance(node, ast.AnnAssign):
        target = node.target
    else:
        return None
    if isinstance(target, ast.Name) and target.id.isupper():
        return target.id
    return None


def _walk(body: list[ast.stmt], parent: str | None, out: list[Symbol]) -> None:
    for node in body:
        if isinstance(node, _DEFS):
            end = node.end_lineno or node.lineno
            if isinstance(node, ast.ClassDef):
                out.append(Symbol(node.name, "class", _start(node), end, parent))
                _walk(node.body, node.name, out)
            else:
                out.append(Symbol(node.name, "method" if parent else "function", _start(node), end, parent))
        elif parent is None and (name := _constant_name(node)):
            out.append(Symbol(name, "constant", node.lineno, node.end_lineno or node.lineno))


def python_symbols(text: str) -> list[Symbol] | None:
    """Top-level functions, classes, their methods and nested classes, module constants; None on a syntax error."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences in the indexed code are not our concern
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    out: list[Symbol] = []
    _walk(tree.body, None, out)
    return out
