"""``NavtuiApp``: a thin Textual App around a ``Runtime``; the screens do the work.

Importing this module stays light (no provider SDKs, no index): the runtime is built in ``run_app`` and
the screens import what they need when they open.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App
from textual.binding import Binding

from navtui.app import gc_policy
from navtui.app.commands import COMMANDS
from navtui.app.theme_defaults import nav_defaults

if TYPE_CHECKING:
    from navtui.agent.runtime import LaunchOptions

STYLES = Path(__file__).resolve().parent.parent / "styles" / "app.tcss"


def _slash_commands_provider() -> type:
    from navtui.app.palette import SlashCommandProvider

    return SlashCommandProvider


class NavtuiApp(App[int]):
    CSS_PATH = str(STYLES)
    TITLE = "navtui"
    COMMANDS = App.COMMANDS | {_slash_commands_provider}
    COMMAND_PALETTE_BINDING = "ctrl+p"
    # Keep Textual's ctrl+q quit; ctrl+c belongs to the prompt (clear, twice to quit).
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", show=False, priority=True)]
    PAUSE_GC_ON_SCROLL = True

    def __init__(
        self,
        runtime: Any,
        *,
        animate: bool = True,
        check_provider: bool = True,
        watch_themes: bool = True,
    ) -> None:
        super().__init__()
        self.runtime = runtime
        self.animations = animate
        self.check_provider = check_provider
        self.watch_theme_files = watch_themes
        self.theme_registry: Any = None
        self._theme_warning: str | None = None
        COMMANDS.load_extensions()
        self._setup_themes()

    def get_system_commands(self, screen: Any) -> Any:
        # /theme (navtui's picker with its themes, persisted) replaces Textual's own "Theme" command.
        for command in super().get_system_commands(screen):
            if command.title != "Theme":
                yield command

    def get_theme_variable_defaults(self) -> dict[str, str]:
        # Themes that are not navtui's (textual-dark, nord ...) get nav-* values derived from their colours.
        return nav_defaults(self.current_theme.to_color_system().generate())

    def _setup_themes(self) -> None:
        """Register navtui's themes (built-in and custom) and pick the one from settings."""
        try:
            from navtui.themes.auto import resolve_theme_setting
            from navtui.themes.live import register_themes
            from navtui.themes.loader import ThemeRegistry
        except ImportError:  # themes are optional for the app to run
            return
        registry = ThemeRegistry(self.runtime.cwd)
        register_themes(self, registry)
        self.theme_registry = registry
        wanted = resolve_theme_setting(self.runtime.settings.ui.theme)
        if registry.find(wanted) is not None or wanted in self.available_themes:
            self.theme = wanted
        else:
            self._theme_warning = f'Theme "{wanted}" not found; using "dark". Available: {", ".join(registry.names())}'
            self.theme = "dark"
        for path, error in registry.errors.items():
            self.runtime.warnings.append(f"Theme file {path} is not valid: {error}")

    def on_mount(self) -> None:
        from navtui.app.screens.main import MainScreen

        if self._theme_warning:
            self.runtime.warnings.append(self._theme_warning)
        self.push_screen(MainScreen(self.runtime, animate=self.animations, check_provider=self.check_provider))
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        gc_policy.freeze_startup()
        if self.watch_theme_files and self.theme_registry is not None:
            self.run_worker(self._watch_themes(), group="theme-watch", exclusive=True)

    async def _watch_themes(self) -> None:
        from navtui.themes.live import ThemeReloader

        await ThemeReloader(self, self.theme_registry).run()

    async def on_unmount(self) -> None:
        try:
            await self.runtime.aclose()
        except Exception:  # closing connections on the way out must never turn a clean exit into a traceback
            pass


def run_app(options: LaunchOptions) -> int:
    """Interactive mode: build the runtime and run the full-screen app. Returns the exit code."""
    from navtui.agent.runtime import Runtime
    from navtui.app.approver import UiApprover
    from navtui.core.errors import NavtuiError

    approver = UiApprover()
    try:
        runtime = Runtime.create(options, approver=approver)
    except NavtuiError as exc:
        print(f"navtui: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"  {exc.hint}", file=sys.stderr)
        return 2
    app = NavtuiApp(runtime)
    approver.attach(app)
    app.run()
    return app.return_code or 0
