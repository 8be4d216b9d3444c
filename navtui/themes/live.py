"""Keep a running Textual app in step with the theme files: register them, apply hot reloads, report bad saves."""

from __future__ import annotations

import asyncio
import errno
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from textual.app import App

from navtui.core.display import display_safe
from navtui.themes.loader import ThemeRegistry, ThemeReload
from navtui.themes.textual_theme import to_textual_theme
from navtui.themes.watcher import DEBOUNCE_MS, watch_themes


@runtime_checkable
class ThemeNamesListener(Protocol):
    """A screen that lists themes (the picker) and wants new theme files to appear without a restart."""

    def update_theme_names(self, names: Sequence[str]) -> None: ...


def register_themes(app: App[Any], registry: ThemeRegistry) -> None:
    """Register every theme of ``registry`` with ``app`` (built-ins replace Textual's themes of the same name)."""
    for name in registry.names():
        app.register_theme(to_textual_theme(registry.get(name)))


class ThemeReloader:
    """Applies watcher results to an app.

    A good save re-registers the theme and, when it is the active one, re-applies it at once; a bad save keeps
    the colours on screen and shows one notice per distinct error; a deleted file changes nothing.
    """

    def __init__(self, app: App[Any], registry: ThemeRegistry) -> None:
        self.app = app
        self.registry = registry
        self._notified: dict[Path, str] = {}
        self._warned: set[str] = set()

    def apply(self, result: ThemeReload) -> None:
        if result.status == "deleted":
            return
        if result.status == "invalid":
            self._notify_once(result.path, str(result.error), "Theme not reloaded: keeping the last good colours")
            return
        self._notified.pop(result.path, None)
        if result.warning and result.warning not in self._warned:
            self._warned.add(result.warning)
            self.app.notify(result.warning, title="Theme name clash", severity="warning", markup=False)
        theme = result.theme
        # Only the file that owns the name may change it (a built-in or a project theme may shadow this one).
        if theme is None or self.registry.find(theme.name) is not theme:
            return
        self.app.register_theme(to_textual_theme(theme))
        if self.app.theme == theme.name:
            # Same name, new colours: force Textual to rebuild its CSS variables and restyle.
            self.app.mutate_reactive(App.theme)
        if result.status == "added" or result.previous_name:
            names = self.registry.names()
            for screen in self.app.screen_stack:
                if isinstance(screen, ThemeNamesListener):
                    screen.update_theme_names(names)

    async def run(
        self,
        stop_event: asyncio.Event | None = None,
        *,
        debounce_ms: int = DEBOUNCE_MS,
        force_polling: bool | None = None,
    ) -> None:
        """Watch and apply until ``stop_event`` is set or the task is cancelled (run it as an app worker).

        A theme folder that cannot be made or watched (a file in its place, no permission) is said once, and the
        app goes on with the themes it has: hot reload is a help, never a reason to stop."""
        try:
            async for result in watch_themes(
                self.registry, stop_event, debounce_ms=debounce_ms, force_polling=force_polling
            ):
                self.apply(result)
        except OSError as exc:
            where = display_safe(str(exc.filename or self.registry.user_dir))
            why = display_safe(exc.strerror or str(exc))
            fix = (
                "Too many programs watch files (fs.inotify.max_user_instances); close some or raise the limit"
                if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOSPC)
                else "Make it a folder you can read"
            )
            self.app.notify(
                f"Theme files are not watched for changes: {where}: {why}. {fix}, then restart navtui.",
                title="Themes",
                severity="warning",
                markup=False,
                timeout=10,
            )

    def _notify_once(self, path: Path, message: str, title: str) -> None:
        if self._notified.get(path) == message:
            return
        self._notified[path] = message
        # Theme files are user text: no markup, so a "[" in a value can't break or restyle the notice.
        self.app.notify(message, title=title, severity="error", markup=False, timeout=10)
