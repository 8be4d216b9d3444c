"""Finding and loading themes: built-ins shipped beside this module, user and project theme folders."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from navtui.config.paths import project_dir as project_config_dir
from navtui.config.paths import user_themes_dir
from navtui.config.repo_files import read_regular
from navtui.themes.model import NavTheme, ThemeSource
from navtui.themes.resolve import build_theme
from navtui.themes.schema import ThemeError

BUILTIN_DIR = Path(__file__).parent
MAX_THEME_BYTES = 1024 * 1024  # a theme is a few KB; anything this big is a mistake, not worth reading whole


def load_theme_file(path: Path, source: ThemeSource = "file") -> NavTheme:
    """Read, validate and resolve one theme file; raises :class:`ThemeError` naming the file and each problem."""
    try:
        # A regular file only: a named pipe in a themes folder blocked the start (and `navtui themes`) for ever.
        data, size = read_regular(path, MAX_THEME_BYTES + 1, inside=None)
        if size > MAX_THEME_BYTES:
            raise ThemeError(
                f"{path}: {size // (1024 * 1024)} MB is too large for a theme file (the limit is 1 MB)",
                hint="check that the right file is in the themes folder",
            )
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise ThemeError(f"{path}: no such theme file", hint="check the path") from None
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise ThemeError(f"{path}: cannot read the theme file ({reason})", hint="check its permissions") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise ThemeError.invalid(
            str(path),
            [f"(file): not valid JSON at line {error.lineno}, column {error.colno}: {error.msg} — fix the syntax"],
        ) from None
    except RecursionError:  # a repository's `[[[[...` 100,000 deep
        raise ThemeError.invalid(str(path), ["(file): nested too deeply to be a theme"]) from None
    return build_theme(raw, label=str(path), source=source, path=path)


@cache
def builtin_themes() -> dict[str, NavTheme]:
    """The themes shipped with navtui, by name (loaded once; a broken built-in is a bug and raises)."""
    themes = {}
    for path in sorted(BUILTIN_DIR.glob("*.json")):
        theme = load_theme_file(path, "builtin")
        themes[theme.name] = theme
    return themes


def _key(path: Path) -> Path:
    # Absolute but not resolved: the watcher reports paths as given, symlinks included.
    return Path(os.path.abspath(path))


@dataclass(frozen=True)
class ThemeReload:
    """What reloading one file did. ``theme`` is the theme now in effect for that file (new or last good)."""

    path: Path
    status: Literal["added", "updated", "invalid", "deleted"]
    theme: NavTheme | None = None
    error: ThemeError | None = None
    previous_name: str | None = None
    warning: str | None = None

    @property
    def ok(self) -> bool:
        return self.status in ("added", "updated")


def brief_error(path: Path, error: ThemeError) -> str:
    """One line for a theme file that does not load: where, how many problems, how to see them."""
    count = len(error.issues) or 1
    problems = f"{count} problem{'s' if count > 1 else ''}"
    return f"{path} does not load ({problems}); `navtui themes validate {path}` lists them"


def declared_name(path: Path) -> str:
    """The theme name a file means to define (its ``name`` field if readable, else its stem)."""
    try:
        name = json.loads(read_regular(path, MAX_THEME_BYTES + 1, inside=None)[0].decode("utf-8")).get("name")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError, RecursionError):
        name = None
    return name if isinstance(name, str) and name else path.stem


class ThemeRegistry:
    """Built-in and custom themes by name. A custom file overrides a built-in of the same name (with a note), as
    omp's custom themes do; project themes win over user ones.

    A custom file that stops parsing (or disappears) keeps its last good theme, so the app never loses
    the colours it is showing.
    """

    def __init__(
        self,
        cwd: Path | None = None,
        *,
        user_dir: Path | None = None,
        project_dir: Path | None = None,
    ) -> None:
        self.user_dir = user_dir if user_dir is not None else user_themes_dir()
        if project_dir is None and cwd is not None:
            project_dir = project_config_dir(cwd) / "themes"
        self.project_dir = project_dir
        self._builtins = builtin_themes()
        self._custom: dict[Path, NavTheme] = {}
        self._errors: dict[Path, ThemeError] = {}
        self.warnings: list[str] = []
        self.load_custom()

    def directories(self) -> list[Path]:
        """The custom theme folders, lowest precedence first (they may not exist)."""
        return [d for d in (self.user_dir, self.project_dir) if d is not None]

    def load_custom(self) -> None:
        """(Re)scan the custom folders; bad files are recorded in :attr:`errors`, never raised."""
        self._custom.clear()
        self._errors.clear()
        self.warnings.clear()
        for directory in self.directories():
            if directory.is_dir():
                for path in sorted(directory.glob("*.json")):
                    result = self.reload_file(path)
                    if result.warning:
                        self.warnings.append(result.warning)

    @property
    def errors(self) -> dict[Path, ThemeError]:
        """Custom files that currently fail to load (their last good theme, if any, stays available)."""
        return dict(self._errors)

    def names(self) -> list[str]:
        return sorted(set(self._builtins) | set(self._custom_by_name()))

    def find(self, name: str) -> NavTheme | None:
        return self._custom_by_name().get(name) or self._builtins.get(name)

    def get(self, name: str) -> NavTheme:
        theme = self.find(name)
        if theme is None:
            raise ThemeError(
                f'Theme not found: "{name}" — available: {", ".join(self.names())}',
                hint=f"custom themes go in {self.user_dir}",
            )
        return theme

    def is_custom(self, name: str) -> bool:
        theme = self.find(name)
        return theme is not None and theme.is_custom

    def reload_file(self, path: Path) -> ThemeReload:
        """Load ``path`` again after a change; on failure the file's last good theme stays in effect."""
        key = _key(path)
        previous = self._custom.get(key)
        if not key.exists():
            return ThemeReload(key, "deleted", theme=previous)
        try:
            theme = load_theme_file(key, self._source_of(key))
        except ThemeError as error:
            self._errors[key] = error
            return ThemeReload(key, "invalid", theme=previous, error=error)
        theme, legibility = _legible(theme)
        if legibility is not None and theme.source == "project":  # a repository's theme is used only if it passes
            self._errors[key] = legibility
            return ThemeReload(key, "invalid", theme=previous, error=legibility)
        self._errors.pop(key, None)
        self._custom[key] = theme
        warning = None
        if theme.name in self._builtins:
            warning = f'{key} replaces the built-in theme "{theme.name}"'
        if legibility is not None:
            count = len(legibility.issues)
            warning = (
                f"{key}: {count} colour pair{'s' if count > 1 else ''} of the approval dialogs, warnings or status "
                f"line were unreadable and are corrected (`navtui themes validate {key}` lists them)"
            )
        renamed = previous.name if previous is not None and previous.name != theme.name else None
        return ThemeReload(
            key,
            "updated" if previous is not None else "added",
            theme=theme,
            previous_name=renamed,
            warning=warning,
        )

    def _source_of(self, path: Path) -> ThemeSource:
        if self.project_dir is not None and path.parent == _key(self.project_dir):
            return "project"
        if path.parent == _key(self.user_dir):
            return "user"
        return "file"

    def _custom_by_name(self) -> dict[str, NavTheme]:
        # Later folders override earlier ones; within a folder, the last file (by name) wins.
        ordered = sorted(self._custom.values(), key=lambda t: (t.source == "project", str(t.path)))
        return {theme.name: theme for theme in ordered}


def _legible(theme: NavTheme) -> tuple[NavTheme, ThemeError | None]:
    """``theme`` made readable where safety depends on it (approval dialogs, warnings, the status line), and the
    error that says what was not; a project's theme is refused with it, a user's is corrected."""
    from navtui.themes.contrast import made_legible, safety_issues

    issues = safety_issues(theme)
    if not issues:
        return theme, None
    error = ThemeError(
        f"{theme.path}: {len(issues)} colour pair{'s' if len(issues) > 1 else ''} of the approval dialogs, warnings or "
        "status line would be unreadable",
        issues=[str(issue) for issue in issues],
        hint="a repository's theme is not used until it is readable; navtui themes validate FILE lists the pairs",
    )
    return made_legible(theme), error
