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
from navtui.config.paths import navtui_home

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
                self._switch(self._cached.name)
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
        from navtui.themes.loader import brief_error, declared_name

        app = self.app
        register_themes(app, registry)
        self.registry = registry
        wanted = self.wanted
        broken = {path: error for path, error in registry.errors.items() if declared_name(path) == wanted}
        if registry.find(wanted) is None and wanted not in app.available_themes:
            if broken:  # the chosen theme's own file: every problem, so it can be fixed
                self.warnings += [f'Theme "{wanted}" could not be loaded; using "dark".\n{e}' for e in broken.values()]
            else:
                available = ", ".join(registry.names())
                self.warnings.append(f'Theme "{wanted}" not found; using "dark". Available: {available}')
            wanted = "dark"
        for path, error in registry.errors.items():
            if path not in broken and first_report(path):  # another theme's file: one line, once per version
                self.warnings.append(brief_error(path, error))
        if app.theme != wanted:
            self._switch(wanted)
        elif (
            self._cached is not None
            and (current := app.get_theme(wanted)) is not None
            and theme_data(self._cached) != theme_data(current)
        ):
            app.mutate_reactive(App.theme)  # same name, new colours: rebuild the CSS variables

    def _switch(self, name: str) -> None:
        """Show theme ``name``. Before the app runs, without Textual's theme watcher: it schedules a re-parse of
        every stylesheet, while the first parse, still to come, reads the theme set here anyway (measured: the
        extra pass was ~10% of the instructions to the first frame)."""
        app = self.app
        if app.is_running:
            app.theme = name
            return
        app.set_reactive(App.theme, name)
        theme = app.current_theme
        # What the watcher would have done, but the re-parse.
        app.set_class(theme.dark, "-dark-mode", update=False)
        app.set_class(not theme.dark, "-light-mode", update=False)
        app.set_class(True, f"-theme-{name}", update=False)
        app._refresh_truecolor_filter(app.ansi_theme)
        app.stylesheet.set_variables(app.get_css_variables())  # made in App.__init__, from the default theme

    def remember(self) -> None:
        """Keep the current theme for the next start (blocking: call it in a thread)."""
        save_cached_theme(self.app.current_theme)


def first_report(path: Path) -> bool:
    """True the first time a broken theme file is reported, and again after it changes (remembered on disk)."""
    import json

    try:
        stat = path.stat()
    except OSError:
        return False
    record = navtui_home() / "cache" / "theme-reports.json"
    try:
        seen = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        seen = {}
    if not isinstance(seen, dict):
        seen = {}
    stamp = f"{stat.st_mtime_ns}:{stat.st_size}"
    if seen.get(str(path)) == stamp:
        return False
    seen[str(path)] = stamp
    try:
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps(seen), encoding="utf-8")
    except OSError:
        pass  # then it is said again next time: better than never
    return True
