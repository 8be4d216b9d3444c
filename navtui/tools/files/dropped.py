"""What a Python write or edit did to names that other code relies on, said in its result.

Three notes: a top-level name the change took away while other files still import it (``dropped_note``), a
name the file imports and then defines again, hiding the import (``shadowed_note``), and a name the file imports
from a workspace module that does not define it (``unresolved_note``).

A small model that rewrites a module whole often drops a function it was not asked about, or renames the one it
was: Qwen2.5-Coder-1.5B, asked to rename ``get_user`` across a package, wrote app/admin.py back with its
``is_known`` gone, and main.py, which imports it, failed three turns later with an error the model could not
place. The write's result now says so at once: "app/admin.py no longer defines is_known, which main.py imports".
Only names some other file imports are named (removing an unused function is said nothing about), and the
workspace is scanned only when a write removed a top-level name.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from navtui.core.walk import walk_files

MAX_SCANNED = 2000  # Python files read to find importers
MAX_FILE_BYTES = 200_000
MAX_SHOWN = 3  # importers named per name

_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)", re.MULTILINE)


def top_level_names(text: str) -> set[str] | None:
    """Functions, classes and assigned names a module defines at its top level; None when it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def module_name(rel: str) -> str:
    """``app/admin.py`` -> ``app.admin``; a package's ``__init__.py`` is the package."""
    parts = rel.removesuffix(".py").split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def _imports_from(module: str, text: str) -> set[str]:
    """The names ``text`` takes from ``module`` (``from app.admin import a, b``; ``from .admin import a``;
    ``admin.a`` after ``import app.admin`` or ``from app import admin``)."""
    last = module.rsplit(".", 1)[-1]
    found: set[str] = set()
    for match in _FROM_IMPORT.finditer(text):
        source = match.group(1).lstrip(".")
        if source and (source == module or module.endswith("." + source)):
            for item in match.group(2).strip("() \t").split(","):
                name = item.strip().split(" as ")[0].strip()
                if name.isidentifier():
                    found.add(name)
    if re.search(rf"\bimport\b[^\n]*\b{re.escape(last)}\b", text):
        found.update(re.findall(rf"\b{re.escape(last)}\.([A-Za-z_]\w*)", text))
    return found


def dropped_note(
    root: Path,
    path: Path,
    before: str,
    after: str,
    later: Collection[str] = frozenset(),
    moves: Mapping[str, str] | None = None,
) -> str | None:
    """The note to add to a write's result when it removed top-level names other files import, else None.

    ``later``: paths the same reply writes after this (a rename's other files): they are not named, since the
    model has changed them by the time it reads the note. ``moves``: the names the request moves, each to its
    file. A name moved away, or now defined in one other file, gets its own line telling the importers where to
    import it from; "Put it back" is said only of a name that is nowhere else (a move's source rewritten whole by
    Qwen2.5-Coder-1.5B lost a function it was not asked about, and one note for both told it to put the moved one
    back too)."""
    if path.suffix != ".py" or not before:
        return None
    old, new = top_level_names(before), top_level_names(after)
    if old is None or new is None:
        return None
    gone = old - new
    if not gone:
        return None
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    module = module_name(rel)
    skipped = {_relative(root, Path(p)) for p in later}
    importers: dict[str, list[str]] = {}
    homes: dict[str, list[str]] = {}  # the other files that define a gone name at their top level
    defines = _definition(gone)
    for other, text in _python_files(root, {rel, *skipped}):
        for name in sorted(_imports_from(module, text) & gone):
            importers.setdefault(name, []).append(other)
        for name in _defined(defines, text):
            homes.setdefault(name, []).append(other)
    if not importers:
        return None
    moved_to = {name: _relative(root, Path(target)) or target for name, target in (moves or {}).items()}
    lost: list[str] = []
    moved: list[str] = []
    for name, files in sorted(importers.items()):
        shown = ", ".join(files[:MAX_SHOWN]) + (f" and {len(files) - MAX_SHOWN} more" if len(files) > MAX_SHOWN else "")
        said = f"{name}, which {shown} {'imports' if len(files) == 1 else 'import'}"
        home = moved_to.get(name) if moved_to.get(name) not in (None, rel) else None
        if home is None and len(set(homes.get(name, ()))) == 1:
            home = homes[name][0]
        if home is None:
            lost.append(said)
        else:
            moved.append(
                f"Note: {rel} no longer defines {said}; it is in {home} now: change the import in {shown} to "
                f"`from {module_name(home)} import {name}`."
            )
    lines = (
        [f"Note: {rel} no longer defines " + "; ".join(lost) + ". Put it back, or change what uses it."] if lost else []
    )
    return "\n".join(lines + moved)


def _definition(names: Collection[str]) -> re.Pattern[str]:
    """A top-level ``def``, ``class`` or assignment of one of ``names`` (the name is the match's last group)."""
    one = "(" + "|".join(re.escape(name) for name in sorted(names)) + r")\b"
    return re.compile(
        rf"^(?:(?:async[ \t]+)?def[ \t]+{one}|class[ \t]+{one}|{one}[ \t]*(?::[^\n=]*)?=(?!=))", re.MULTILINE
    )


def _relative(root: Path, path: Path) -> str:
    target = path if path.is_absolute() else root / path
    try:
        return target.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return ""


def shadowed_note(root: Path, path: Path, after: str) -> str | None:
    """The sentence to add when a Python file imports a name and then defines it again at the top level.

    Qwen2.5-Coder-1.5B, asked to add a test to test_lists.py and fix chunk in lists.py, wrote a copy of the buggy
    chunk into the test file under ``from lists import chunk``: the test ran the copy, so no fix of lists.py
    could make it pass, and the model never saw why."""
    if path.suffix != ".py":
        return None
    hidden = shadowing_copies(after)
    if not hidden:
        return None
    rel = _relative(root, path) or path.name
    said = "; ".join(f"{copy.name} from {copy.module}" for copy in hidden)
    return (
        f"Note: {rel} imports {said}, then defines its own, which hides the import: the code below it uses the copy. "
        "Remove the copy to use the module's."
    )


@dataclass(frozen=True)
class Copy:
    """A top-level definition of a name the module imported above it: lines ``first``..``last`` (1-based)."""

    name: str
    module: str
    first: int
    last: int


def shadowing_copies(text: str) -> list[Copy]:
    """The definitions in ``text`` that hide a name imported before them (decorators included in the lines)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    imported: dict[str, str] = {}
    hidden: list[Copy] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                imported[alias.asname or alias.name] = node.module
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in imported:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            hidden.append(Copy(node.name, imported.pop(node.name), first, node.end_lineno or node.lineno))
    return hidden


def without_copies(text: str) -> str | None:
    """``text`` with the copies ``shadowing_copies`` finds taken out, or None when it has none."""
    copies = shadowing_copies(text)
    if not copies:
        return None
    lines = text.splitlines(keepends=True)
    for copy in reversed(copies):
        del lines[copy.first - 1 : copy.last]
    return re.sub(r"\n{4,}", "\n\n\n", "".join(lines))


def unresolved_note(root: Path, path: Path, after: str, later: Collection[str] = frozenset()) -> str | None:
    """The note to add when a Python file imports names from a workspace module that does not define them.

    Qwen2.5-Coder-1.5B, moving parse_duration from utils.py to timeparse.py, wrote main.py's import as
    ``from timeparse import parse_duration, shout, slug``: shout and slug stayed in utils.py, nothing said so, and
    the run ended with main.py failing. Only modules that are files of the workspace are checked (the script's
    folder or the workspace's root, as ``python3 main.py`` finds them), not those the same reply writes later, and
    a module that defines ``__getattr__`` or imports ``*`` is taken to define anything."""
    if path.suffix != ".py":
        return None
    try:
        tree = ast.parse(after)
    except (SyntaxError, ValueError):
        return None
    skipped = {_relative(root, Path(p)) for p in later}
    said: list[str] = []
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or not (node.module or node.level):
            continue
        source = _module_file(root, path, node.module or "", node.level)
        if source is None or _relative(root, source) in skipped:
            continue
        try:
            defined = module_names(source.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        if defined is None:
            continue
        package = source.parent if source.name == "__init__.py" else None
        missing = [
            alias.name
            for alias in node.names
            if alias.name != "*"
            and alias.name not in defined
            and not (package and ((package / f"{alias.name}.py").is_file() or (package / alias.name).is_dir()))
        ]
        if missing:
            said.append(_unresolved(root, path, node, source, missing))
    return "\n".join(said) or None


def _unresolved(root: Path, path: Path, node: ast.ImportFrom, source: Path, missing: list[str]) -> str:
    rel = _relative(root, path) or path.name
    module = "." * node.level + (node.module or "")
    names = ", ".join(missing)
    them = "it" if len(missing) == 1 else "them"
    homes = _homes(root, set(missing), {rel, _relative(root, source)})
    places = {tuple(homes.get(name, ())) for name in missing}
    if len(places) == 1 and len(place := next(iter(places))) == 1:
        where = f" {place[0]} defines {them}: import {them} from {module_name(place[0])}."
    else:
        where = f" Define {them} there, or import {them} from the module that does."
    return f"Note: {rel} imports {names} from {module}, which does not define {them}.{where}"


def module_names(text: str) -> set[str] | None:
    """Every name a module offers at its top level (definitions, assignments and imports, inside ``if`` and
    ``try`` too); None when it does not parse or may offer any name (``import *``, a module ``__getattr__``)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    names: set[str] = set()
    body = list(tree.body)
    while body:
        node = body.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With)):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            if isinstance(node, ast.With):
                targets = [item.optional_vars for item in node.items]
            for target in targets:
                if target is not None:
                    names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import):
            names.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if any(alias.name == "*" for alias in node.names):
                return None
            names.update(alias.asname or alias.name for alias in node.names)
        for field in ("body", "orelse", "finalbody", "handlers"):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                body.extend(getattr(node, field, ()))
    return None if "__getattr__" in names else names


def _module_file(root: Path, path: Path, module: str, level: int) -> Path | None:
    """The workspace file ``from <module> import ...`` in ``path`` loads, when it is one."""
    parts = module.split(".") if module else []
    if level:
        base = path.parent
        for _ in range(level - 1):
            base = base.parent
        bases = [base]
    else:
        bases = [path.parent, root]
    for base in bases:
        stem = base.joinpath(*parts) if parts else base
        for candidate in (stem.with_name(stem.name + ".py") if parts else None, stem / "__init__.py"):
            if candidate is not None and candidate.is_file() and _relative(root, candidate):
                return candidate
    return None


def _homes(root: Path, names: set[str], skip: Collection[str]) -> dict[str, list[str]]:
    """The workspace's Python files that define each of ``names`` at their top level."""
    homes: dict[str, list[str]] = {}
    defines = _definition(names)
    for rel, text in _python_files(root, skip):
        for name in _defined(defines, text):
            homes.setdefault(name, []).append(rel)
    return homes


def _python_files(root: Path, skip: Collection[str]) -> Iterator[tuple[str, str]]:
    """The workspace's Python files (path, text) in view, but ``skip``; at most ``MAX_SCANNED`` of them."""
    scanned = 0
    for item in walk_files(root):
        if not item.rel.endswith(".py") or item.rel in skip or item.size > MAX_FILE_BYTES:
            continue
        scanned += 1
        if scanned > MAX_SCANNED:
            return
        try:
            text = item.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        yield item.rel, text


def _defined(defines: re.Pattern[str], text: str) -> list[str]:
    return [match.group(match.lastindex or 0) for match in defines.finditer(text)]
