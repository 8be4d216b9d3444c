"""Which theme the app shows, and when navtui's theme files are loaded.

The first frame uses the cached copy of the last theme (``theme_cache``) when there is one; the full theme
registry (built-in and custom files, pydantic-validated) is then built off the UI loop and applied, which
re-styles the app only if the theme changed on disk since the copy was made.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App

from navtui.app.theme_cache import load_cached_theme, save_cached_theme, theme_data

if TYPE_CHECKING:
    from textual.theme import Theme

    from navtui.themes.loader import ThemeRegistry


class AppThemes:
    def __init__(self, app: App[Any], cwd: Path, setting: str) -> None:
        from navtui.themes.auto import resolve_theme_setting

        self.app = app
        self.cwd = cwd
        self.wanted = resolve_theme_setting(setting)
        self.registry: ThemeRegistry | None = None
        self.warnings: list[str] = []
        self._cached: Theme | None = None

    def start(self, *, use_cache: bool) -> bool:
        """Apply a theme for the first frame; True when ``build``/``apply`` must still follow."""
        if use_cache:
            self._cached = load_cached_theme(self.wanted)
            if self._cached is not None:
                self.app.register_theme(self._cached)
                self.app.theme = self._cached.name
                return True
        self.apply(self.build())
        return False

    def build(self) -> ThemeRegistry:
        """The theme registry (blocking: imports and file reads; fine in a thread)."""
        from navtui.themes.loader import ThemeRegistry

        return ThemeRegistry(self.cwd)

    def apply(self, registry: ThemeRegistry) -> None:
        """Register every theme and switch to the wanted one (re-styling if it differs from the cached copy)."""
        from navtui.themes.live import register_themes

        app = self.app
        register_themes(app, registry)
        self.registry = registry
        wanted = self.wanted
        if registry.find(wanted) is None and wanted not in app.available_themes:
            self.warnings.append(f'Theme "{wanted}" not found; using "dark". Available: {", ".join(registry.names())}')
            wanted = "dark"
        for path, error in registry.errors.items():
            self.warnings.append(f"Theme file {path} is not valid: {error}")
        if app.theme != wanted:
            app.theme = wanted
        elif self._cached is not None and theme_data(self._cached) != theme_data(app.get_theme(wanted)):
            app.mutate_reactive(App.theme)  # same name, new colours: rebuild the CSS variables

    def remember(self) -> None:
        """Keep the current theme for the next start (blocking: call it in a thread)."""
        save_cached_theme(self.app.current_theme)
