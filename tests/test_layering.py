"""Layer rules: the headless core never imports textual, and heavy modules load lazily."""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "navtui"
HEADLESS_PACKAGES = ("agent", "providers", "tools", "session", "index", "config", "core", "mcp", "checkpoints")


@functools.cache
def _tree(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once for all the tests here (each walks most of navtui)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@pytest.fixture(autouse=True, scope="module")
def _trees_dropped_after() -> Iterator[None]:
    """The trees are ~500,000 objects: kept for the rest of the session, every full collection walked them
    (~250 ms each)."""
    yield
    _tree.cache_clear()
    _imported_modules.cache_clear()


@functools.cache
def _imported_modules(path: Path) -> frozenset[str]:
    names: set[str] = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return frozenset(names)


def test_headless_packages_never_import_textual() -> None:
    offenders = []
    for package in HEADLESS_PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            bad = {m for m in _imported_modules(path) if m == "textual" or m.startswith("textual.")}
            bad |= {m for m in _imported_modules(path) if m.startswith(("navtui.app", "navtui.widgets"))}
            if bad:
                offenders.append(f"{path.relative_to(ROOT.parent)}: {sorted(bad)}")
    assert offenders == []


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(out.stdout.split())


def test_cli_help_imports_nothing_heavy() -> None:
    modules = _modules_after("import navtui.cli; navtui.cli.build_parser().format_help()")
    heavy = {"textual", "anthropic", "httpx", "httpx_sse", "ollama", "pydantic", "rich", "mcp"}
    assert not heavy & {m.split(".")[0] for m in modules}


def test_headless_runtime_does_not_import_textual_or_anthropic() -> None:
    modules = _modules_after("import navtui.headless")
    tops = {m.split(".")[0] for m in modules}
    assert "textual" not in tops and "anthropic" not in tops and "httpx_sse" not in tops
    assert "mcp" not in tops  # the MCP SDK loads only when a configured server starts


# Which tools sub-package may import which (run-time or type-only): ``tools`` is the framework (base, schema,
# approval, authorize, registry). The registry assembles the standard tool set, so it may import every
# sub-package; base names a few of their types (jobs, sandbox policy) and authorize asks the danger rules and the
# protected paths. Anything new here is a design decision: change docs/architecture.md with it.
TOOLS_ALLOWED = {
    "files": {"tools", "shell.output"},
    "shell": {"tools", "sandbox"},
    "sandbox": {"tools", "danger", "shell"},
    "danger": {"files.protected"},
}
TOOLS_SANDBOX_TO_SHELL = {"blocked.py", "cli.py"}  # the rest of the sandbox never reaches back into the shell


def _tools_part(module: str) -> str | None:
    """``navtui.tools.files.read`` -> ``files.read``; framework modules -> ``tools``; other packages -> None."""
    parts = module.split(".")
    if parts[:2] != ["navtui", "tools"] or len(parts) < 3:
        return None
    if parts[2] in TOOLS_ALLOWED:
        return ".".join(parts[2:])
    return "tools"


def test_tools_sub_packages_import_only_what_their_docstring_allows() -> None:
    offenders = []
    for package, allowed in TOOLS_ALLOWED.items():
        for path in (ROOT / "tools" / package).glob("*.py"):
            for module in _imported_modules(path):
                part = _tools_part(module)
                if part is None or part.split(".")[0] == package:
                    continue
                ok = any(part == a or part.startswith(a + ".") for a in allowed)
                if package == "sandbox" and part.startswith("shell") and path.name not in TOOLS_SANDBOX_TO_SHELL:
                    ok = False
                if not ok:
                    offenders.append(f"{path.relative_to(ROOT.parent)}: {module}")
    assert offenders == []


def test_the_sandbox_launcher_imports_nothing_of_navtui() -> None:
    # It runs as a script under `python -E -s -S`, between fork and exec: stdlib only.
    modules = _imported_modules(ROOT / "tools" / "sandbox" / "exec.py")
    sibling = {"namespaces", "navtui.tools.sandbox"}  # its namespaces half, the same way it was loaded
    assert modules <= {"ctypes", "os", "sys", "_signal", "__future__", *sibling}
    namespaces = _imported_modules(ROOT / "tools" / "sandbox" / "namespaces.py")
    assert namespaces <= {"ctypes", "os", "sys", "time", "_signal", "select", "collections.abc"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _run_time_imports(path: Path, known: set[str]) -> set[str]:
    """The navtui modules ``path`` imports when it runs: at the top or inside functions, not under TYPE_CHECKING."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit_one(other)
                continue
            visit_one(child)

    def visit_one(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)  # a submodule by name
        visit(node)

    visit(_tree(path))
    return found & known


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_of_navtui_imports_itself_back_at_run_time() -> None:
    """A cycle means neither module can be read, tested or moved alone (and its import order decides whether
    it works). Break one by moving the shared type down, or by a Protocol where the lower module needs the
    higher one (docs/architecture.md). Imports under ``TYPE_CHECKING`` do not count."""
    paths = {_module_name(path): path for path in ROOT.rglob("*.py")}
    graph = {name: _run_time_imports(path, set(paths)) - {name} for name, path in paths.items()}
    cycles = [" <-> ".join(cycle) for cycle in _cycles(graph)]
    assert cycles == []


def _type_only_too(path: Path, known: set[str]) -> set[str]:
    """The navtui modules ``path`` imports, those under ``TYPE_CHECKING`` included."""
    found: set[str] = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found & known


def test_no_cycle_through_type_only_imports_either() -> None:
    """The type checker reads both modules of such a cycle as one: a lower module names what it needs of a higher
    one in a ``Protocol`` instead (``config/endpoints.Configured``, ``mcp/search.Deferred``)."""
    paths = {_module_name(path): path for path in ROOT.rglob("*.py")}
    graph = {name: _type_only_too(path, set(paths)) - {name} for name, path in paths.items()}
    cycles = [" <-> ".join(cycle) for cycle in _cycles(graph)]
    assert cycles == []
