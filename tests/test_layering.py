"""Layer rules: the headless core never imports textual, and heavy modules load lazily."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "navtui"
HEADLESS_PACKAGES = ("agent", "providers", "tools", "session", "index", "config", "core", "mcp")


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


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
