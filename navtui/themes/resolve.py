"""Turn decoded theme JSON into a :class:`NavTheme`: shape checks, then ``vars`` references (nested, no cycles)."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from navtui.themes.model import NavTheme, ThemeSource
from navtui.themes.palette import CSS_HEX_RE, flatten_alpha, normalise_hex, xterm_to_hex
from navtui.themes.schema import VAR_NAME_RE, ThemeError, example_colour, parse_theme_file
from navtui.themes.tokens import EXPORT_TOKENS, REQUIRED_TOKENS


class _Resolver:
    """Resolves colour values through ``vars``; collects one message per broken reference or cycle."""

    def __init__(self, variables: Mapping[str, Any]) -> None:
        self.variables = variables
        self.issues: list[str] = []
        self._done: dict[str, str] = {}
        self._failed: set[str] = set()
        self._cycles: set[frozenset[str]] = set()

    def value(self, value: Any, path: str, chain: tuple[str, ...] = ()) -> str | None:
        # Wrong types and bad hex were already reported by the schema; they just fail quietly here.
        if isinstance(value, bool) or not isinstance(value, str | int):
            return None
        if isinstance(value, int):
            return xterm_to_hex(value) if 0 <= value <= 255 else None
        if value == "":
            return ""
        if value.startswith("#"):
            return normalise_hex(value) if CSS_HEX_RE.match(value) else None
        if not VAR_NAME_RE.match(value):
            return None
        if value not in self.variables:
            self.issues.append(f"{path}: {self._unknown(value)}")
            return None
        return self.variable(value, chain)

    def variable(self, name: str, chain: tuple[str, ...] = ()) -> str | None:
        if name in self._done:
            return self._done[name]
        if name in self._failed:
            return None
        if name in chain:
            cycle = (*chain[chain.index(name) :], name)
            if frozenset(cycle) not in self._cycles:
                self._cycles.add(frozenset(cycle))
                self.issues.append(
                    f"vars.{cycle[0]}: circular reference {' -> '.join(cycle)} — make one of them a colour "
                    f'like "{example_colour(cycle[0])}"'
                )
            return None
        resolved = self.value(self.variables[name], f"vars.{name}", (*chain, name))
        if resolved is None:
            self._failed.add(name)
        else:
            self._done[name] = resolved
        return resolved

    def _unknown(self, name: str) -> str:
        if name in REQUIRED_TOKENS:
            return (
                f'unknown variable "{name}" — "{name}" is a colour token and only names in "vars" can be '
                f'referenced; add "{name}" to "vars" or use a colour like "{example_colour(name)}"'
            )
        message = f'unknown variable "{name}" — define it in "vars" or use a colour like "{example_colour(name)}"'
        close = difflib.get_close_matches(name, list(self.variables), n=1, cutoff=0.75)
        return message + (f' (did you mean "{close[0]}"?)' if close else "")


def _section(raw: Any, key: str) -> Mapping[str, Any]:
    value = raw.get(key) if isinstance(raw, dict) else None
    return value if isinstance(value, dict) else {}


def build_theme(raw: Any, *, label: str, source: ThemeSource = "file", path: Path | None = None) -> NavTheme:
    """Validate decoded JSON and resolve it; raises :class:`ThemeError` listing every problem under ``label``."""
    model, issues = parse_theme_file(raw)
    # References are checked even when the shape is wrong, so one run shows (nearly) everything to fix.
    variables = _section(raw, "vars")
    resolver = _Resolver(variables)
    for name in variables:
        resolver.variable(name)
    colors = {key: resolver.value(value, f"colors.{key}") for key, value in _section(raw, "colors").items()}
    export = {
        key: resolver.value(_unsigil(value), f"export.{key}")
        for key, value in _section(raw, "export").items()
        if key in EXPORT_TOKENS and value is not None
    }
    issues += [issue for issue in resolver.issues if issue not in issues]
    if issues or model is None:
        raise ThemeError.invalid(label, issues)
    opaque_colors, opaque_export = _without_alpha(
        {key: value for key, value in colors.items() if value is not None}, {k: v for k, v in export.items() if v}
    )
    return NavTheme(
        name=model.name,
        colors=opaque_colors,
        export=opaque_export,
        symbols=model.symbols,
        source=source,
        path=path,
    )


def _unsigil(value: Any) -> Any:
    """omp's export section may write a variable as ``"$name"``."""
    return value[1:] if isinstance(value, str) and value.startswith("$") else value


def _without_alpha(colors: dict[str, str], export: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """Terminals have no alpha: ``#rrggbbaa`` colours are painted over the page background (itself over the
    default background of the theme's tone when it has alpha)."""
    if not any(len(value) == 9 for value in (*colors.values(), *export.values())):
        return colors, export
    solid = NavTheme(
        name="-",
        colors={key: value[:7] for key, value in colors.items()},
        export={key: value[:7] for key, value in export.items()},
    )
    default = NavTheme(name="-", colors=solid.colors).background  # the page without export.pageBg
    page = flatten_alpha(export["pageBg"], default) if "pageBg" in export else solid.background
    export = {key: flatten_alpha(value, default if key == "pageBg" else page) for key, value in export.items()}
    return {key: flatten_alpha(value, page) for key, value in colors.items()}, export
