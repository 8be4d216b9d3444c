"""``NavtuiApp``: a thin Textual App around a ``Runtime``; the screens do the work.

Importing this module stays light (no provider SDKs, no index): the runtime is built in ``run_app`` and
the screens import what they need when they open.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.dom import NoScreen

from navtui.app import gc_policy
from navtui.app.commands import COMMANDS
from navtui.app.compositor import DiffingCompositor
from navtui.app.local_echo import (
    ECHO_RETRY,
    EchoState,
    LocalEcho,
    binds_with_priority,
    echo_state,
    enabled_by,
    prompt_idle,
    prompt_painted,
)
from navtui.app.screen_image import ScreenImage, erases_with_background
from navtui.app.theme_defaults import nav_defaults
from navtui.app.theming import AppThemes
from navtui.styles import stylesheet
from navtui.widgets.handlers import CachedHandlers
from navtui.widgets.pacing import InputPacer, key_on_its_way

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import RenderableType
    from textual.driver import Driver
    from textual.screen import Screen

    from navtui.agent.runtime import LaunchOptions, Runtime
    from navtui.app.screens.main import MainScreen
    from navtui.app.startup import FirstFrameSettings
    from navtui.app.ui_runtime import UiRuntime
    from navtui.config.settings import Settings
    from navtui.themes.loader import ThemeRegistry
    from navtui.tools.approval import Approver


def _slash_commands_provider() -> type:
    from navtui.app.palette import SlashCommandProvider

    return SlashCommandProvider


FIRST_FRAME_WAIT = 2.0  # seconds the first frame waits for the main screen to be in place, at most


# Textual's Input module, by its private name (tests/app/test_key_order.py pins it): loaded with the first Input made
INPUT_MODULE = "textual.widgets._input"


class NavtuiApp(CachedHandlers, App[int]):
    CSS_PATH = stylesheet("app")
    TITLE = "navtui"
    COMMANDS = App.COMMANDS | {_slash_commands_provider}
    COMMAND_PALETTE_BINDING = "ctrl+p"
    # Keep Textual's ctrl+q quit; ctrl+c belongs to the prompt (clear, twice to quit).
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", show=False, priority=True)]
    PAUSE_GC_ON_SCROLL = True

    def __init__(
        self,
        runtime: UiRuntime | None,
        *,
        animate: bool = True,
        check_provider: bool = True,
        watch_themes: bool = True,
        options: LaunchOptions | None = None,
        settings: Settings | FirstFrameSettings | None = None,
        approver: Approver | None = None,
    ) -> None:
        """With ``runtime=None`` the app builds it (from ``options``, with ``approver``) in a thread after its
        first frame: Textual and the screen come first, the provider SDKs, tools and session after."""
        super().__init__()
        self.runtime = runtime
        if runtime is not None:
            options, settings = runtime.options, runtime.settings
        assert options is not None and settings is not None, "without a runtime, options and settings are needed"
        self.options: LaunchOptions = options
        self.settings: Settings | FirstFrameSettings = settings
        self.approver = approver
        self.animations = animate
        self.check_provider = check_provider
        self.watch_theme_files = watch_themes
        self.pacer = InputPacer()  # typing first: streamed output waits for the echo (widgets/pacing.py)
        # What the terminal shows: frames write only what changed
        self.screen_image = ScreenImage(self.console, erase=erases_with_background(os.environ.get("TERM")))
        # A key with a certain outcome echoed by the driver's input thread (app/local_echo.py)
        self.local_echo = LocalEcho() if enabled_by(getattr(self.settings.ui, "local_echo", True)) else None
        if runtime is not None:
            COMMANDS.load()
        self.themes = AppThemes(self, Path(self.options.cwd), self.settings.ui.theme)
        # A deferred start shows the cached theme in its first frame and loads the theme files after it.
        self._themes_pending = self.themes.start(use_cache=runtime is None)

    @property
    def theme_registry(self) -> ThemeRegistry | None:
        """navtui's theme registry (``None`` until loaded, or when themes are unavailable)."""
        return self.themes.registry

    def get_system_commands(self, screen: Any) -> Any:
        # /theme (navtui's picker with its themes, persisted) replaces Textual's own "Theme" command.
        for command in super().get_system_commands(screen):
            if command.title != "Theme":
                yield command

    def get_driver_class(self) -> type[Driver]:
        driver = super().get_driver_class()
        if driver.__name__ == "LinuxDriver" and driver.__module__ == "textual.drivers.linux_driver":
            from navtui.app.driver import KeyNoticingDriver  # keys count from their read (widgets/pacing.py)

            return KeyNoticingDriver
        return driver

    def get_theme_variable_defaults(self) -> dict[str, str]:
        # Themes that are not navtui's (textual-dark, nord ...) get nav-* values derived from their colours.
        return nav_defaults(self.current_theme.to_color_system().generate())

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            self.pacer.key()
            if not event.is_forwarded and not event.is_printable:
                self._input_binding_in_order(event)
        echo = self.local_echo
        echoed = echo.handled_event(event) if echo is not None and isinstance(event, events.InputEvent) else None
        await super().on_event(event)
        if echo is not None and isinstance(event, events.Key):
            prompt = self.main_screen._prompt
            if prompt is None or not prompt.is_mounted or not event.is_forwarded or self.screen.focused is not prompt:
                echo.key_applied(event)  # the prompt will not see it (a binding took it): not to be written again
                if echoed is not None and prompt is not None and prompt.is_mounted:
                    prompt.refresh_lines(echoed.state.content_y)  # a frame puts the wrong echo right
            elif echoed is not None:
                # A frame repaints the echo's row once the key is through (it is behind the key in the prompt's
                # queue), even if the key changed nothing there: a wrong echo is put right.
                prompt.refresh_lines(echoed.state.content_y)

    def _input_binding_in_order(self, event: events.Key) -> None:
        """A key an ``Input`` binds (Backspace, the arrows, Enter) acts in the order typed.

        Textual's ``Input`` (the palette's search, a denial's reason, a label) inserts a letter where the key lands,
        but its bindings run once the key has bubbled back up to the app: typed quickly, letters after such a key
        went in before it ran ("abc" ⌫ ⌫ "x" gave "ab"). Its binding runs in the field's own queue instead, ahead of
        the key, which then does nothing more. A key a priority binding takes, or a keymap: as Textual does it."""
        focused = self.focused
        if focused is None or self._keymap or INPUT_MODULE not in sys.modules:
            return  # (no Input was ever made: its module loads with the first)
        from textual.widgets import Input

        if not isinstance(focused, Input) or binds_with_priority(self.screen, event.key):
            return
        actions = [b.action for b in focused._bindings.key_to_bindings.get(event.key, ()) if not b.priority]
        if not actions:
            return

        async def run() -> None:
            for action in actions:
                if await self.run_action(action, focused):
                    event.stop()
                    event.prevent_default()  # the key, behind this in the field's queue, has been handled
                    return

        focused.call_later(run)

    async def _check_bindings(self, key: str, priority: bool = False) -> bool:
        # Textual looks for a priority binding at every key by building the screen's whole binding chain (each
        # node's bindings copied, the keys the focused widget takes filtered out): ~0.1 ms of each key's echo
        # for a key no priority binding claims, which is nearly every key. The chain only ever drops bindings,
        # so a key no node of it binds with priority has none there. A keymap renames keys: Textual decides.
        if priority and not self._keymap and not binds_with_priority(self.screen, key):
            return False
        return await super()._check_bindings(key, priority)

    def clear_selection(self) -> None:
        # The prompt's cursor moves at every key and TextArea clears the screen's text selection each time: two
        # reactives set to what they hold already (~0.05 ms a key). With nothing selected there is nothing to clear.
        try:
            screen = self.screen
        except NoScreen:
            return
        if screen.selections or screen._select_state is not None:
            super().clear_selection()

    def _display(self, screen: Screen[Any], renderable: RenderableType | None) -> None:
        # Only the main screen's compositor keeps the terminal's image up to date; another screen's frame
        # (a dialog, a picker) changes cells it does not know of.
        if renderable is not None and not isinstance(screen._compositor, DiffingCompositor):
            self.screen_image.invalidate()
        echo = self.local_echo
        if echo is None or renderable is None or self._batch_count or self._driver is None:
            super()._display(screen, renderable)
            return
        # The local echoes (app/local_echo.py): what this frame shows of the keys read, and the state the next keys
        # are echoed from. Another screen's frame is whole: it shows (or hides) every echo.
        main = screen is self.screen_stack[0] and isinstance(screen._compositor, DiffingCompositor)
        echo.frame_begins_write((self.size.width, self.size.height), whole=not main)
        begin, end = getattr(self._driver, "begin_frame", None), getattr(self._driver, "end_frame", None)
        if begin is not None and end is not None:  # app/driver.py: one write, the echoes it would wipe at its end
            begin()
            try:
                super()._display(screen, renderable)
            finally:
                end()
        else:
            super()._display(screen, renderable)
        echo.frame_written(self.screen_image, self._echo_state(screen))
        if echo.state is None and main and not self._echo_retry:
            # The frame did not show the prompt settled (its edit's messages still on their way): look again soon,
            # without waiting for a frame that may not come (an idle prompt after ctrl+c)
            self._echo_retry = True
            asyncio.get_running_loop().call_later(ECHO_RETRY, self._retry_echo_state)

    _echo_retry = False  # a look at the echo's state is scheduled

    def _echo_state(self, screen: Screen[Any]) -> EchoState | None:
        """The local echo's state the main screen's prompt gives now, if the screen shows it settled."""
        echo = self.local_echo
        prompt = getattr(screen, "_prompt", None)
        if (
            echo is None
            or prompt is None
            or screen is not self.screen
            or screen is not self.screen_stack[0]
            or echo.read != echo.handled
            or not prompt_idle(prompt)
            or not prompt_painted(screen, prompt)
        ):
            return None
        return echo_state(screen, prompt, self.screen_image, echo)

    def _retry_echo_state(self) -> None:
        self._echo_retry = False
        echo = self.local_echo
        if echo is None or echo.state is not None or self._batch_count or not self.is_running:
            return
        try:
            screen = self.screen
        except NoScreen:
            return
        echo.publish(self._echo_state(screen))

    def local_echo_failed(self, error: Exception) -> None:
        """The local echo raised on the driver's input thread: it is off from this key on (the loop echoes every key),
        and the loop repaints the screen whole, since an echo may have been half written. Thread-safe."""
        self.local_echo = None
        self.call_later(self._echo_off, f"{type(error).__name__}: {error}")

    def _echo_off(self, reason: str) -> None:
        self.screen_image.invalidate()
        self.screen.refresh()
        from navtui.core.display import display_safe

        self.notify(
            f"Keys are no longer echoed ahead of the app (an error in the local echo: {display_safe(reason)}); "
            "typing works as before. Please report it; ui.local_echo = false turns it off for good.",
            title="local echo",
            severity="warning",
            markup=False,
            timeout=10,
        )

    def _terminal_resumed(self, app: App[int]) -> None:
        # Back from a suspend ($EDITOR, ctrl+z): the terminal showed something else meanwhile.
        self.screen_image.invalidate()
        self.screen.refresh()

    def post_display_hook(self) -> None:
        self.pacer.frame(shows_key=not key_on_its_way(self.screen, self.pacer))

    def get_default_screen(self) -> Screen[Any]:
        # The main screen is the first screen, not pushed over Textual's blank one (which was laid out and
        # repainted for nothing at every start).
        from navtui.app.screens.main import MainScreen

        if self.runtime is not None:
            self.runtime.warnings.extend(self.themes.warnings)
        return MainScreen(
            self.runtime,
            options=self.options,
            settings=self.settings,
            animate=self.animations,
            check_provider=self.check_provider,
        )

    async def on_mount(self) -> None:
        # One complete first frame, in one write: nothing is painted until the welcome card, prompt box and
        # status line are all in place (Textual paints widgets as they arrive: three writes, ~60 ms apart).
        self.app_resume_signal.subscribe(self, self._terminal_resumed)
        screen = self.main_screen
        with self.batch_update():
            try:
                await asyncio.wait_for(screen.composed.wait(), FIRST_FRAME_WAIT)
            except TimeoutError:
                pass  # something failed on the way: paint what there is rather than nothing
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        if self.runtime is None:
            self.run_worker(self._build_runtime(), group="runtime", exclusive=True)
        else:
            self._themes_ready()
        gc_policy.settle()

    def _themes_ready(self) -> None:
        """The registry is loaded: watch the theme files and keep a copy of the theme for the next start."""
        self.run_worker(asyncio.to_thread(self.themes.remember), group="theme-cache")
        if self.watch_theme_files and self.theme_registry is not None:
            self.run_worker(self._watch_themes(), group="theme-watch", exclusive=True)

    def watch_theme(self, name: str) -> None:
        if self.theme_registry is not None and self.is_running:
            self.run_worker(asyncio.to_thread(self.themes.remember), group="theme-cache")

    async def _build_runtime(self) -> None:
        """Import and build the runtime in a thread (the screen stays live), then hand it to the screen."""
        from navtui.core.errors import NavtuiError

        def build() -> tuple[Runtime | None, ThemeRegistry | None, NavtuiError | None, Sequence[Any] | None]:
            from navtui.agent.runtime import Runtime
            from navtui.app.session_view import PathTranscript, session_transcript

            registry = self.themes.build() if self._themes_pending else None
            try:
                # A resumed session's transcript items, made here: every entry of the path is read for them
                # (0.9-1.3 s of a 20,000-entry session at load 7), which froze the screen on the loop. They are made
                # as the context's pass reads the path, which parses each line (another pass parsed each again).
                read = PathTranscript()
                runtime = Runtime.create(self.options, approver=self.approver, read_path=read.add)
                entries = runtime.path_entries()
                items: Sequence[Any] | None = session_transcript(entries, read=read) if entries else None
            except NavtuiError as exc:
                return None, registry, exc, None
            except Exception as exc:  # a bug must still leave a screen that says what happened
                error = NavtuiError(f"{type(exc).__name__}: {exc}", hint="this is a bug in navtui")
                return None, registry, error, None
            COMMANDS.import_modules()  # imports only; registering happens on the loop
            return runtime, registry, None, items

        screen = self.main_screen
        runtime, registry, error, items = await asyncio.to_thread(build)
        if registry is not None:
            self.themes.apply(registry)
        self._themes_ready()
        if runtime is None:
            assert error is not None
            screen.runtime_failed(error.message, error.hint)
            return
        COMMANDS.load()
        runtime.warnings.extend(self.themes.warnings)
        self.runtime = runtime
        screen.runtime_ready(runtime, items)

    @property
    def main_screen(self) -> MainScreen:
        from navtui.app.screens.main import MainScreen

        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    async def _watch_themes(self) -> None:
        from navtui.themes.live import ThemeReloader

        registry = self.theme_registry
        if registry is not None:
            await ThemeReloader(self, registry).run()

    async def on_unmount(self) -> None:
        if self.runtime is None:
            return
        try:
            await self.runtime.aclose()
        except Exception:  # closing connections on the way out must never turn a clean exit into a traceback
            pass


def run_app(options: LaunchOptions) -> int:
    """Interactive mode: run the full-screen app; it builds the runtime after its first frame.

    Problems with the settings or the session surface in the app (as an error card), not as an exit.
    """
    from navtui.app.approver import UiApprover
    from navtui.app.startup import peek_settings

    # A key is read by Textual's input thread and a frame written by its output thread, each needing the GIL
    # while the event loop runs Python: a thread asking for it waits up to the switch interval (5 ms by default)
    # twice per echo. 1 ms bounds that wait; the threads are idle (no extra switching) unless there is input
    # or output.
    sys.setswitchinterval(0.001)
    settings = peek_settings(options.cwd, options.overrides())
    approver = UiApprover()
    app = NavtuiApp(None, options=options, settings=settings, approver=approver)
    approver.attach(app)
    app.run()
    hint = resume_hint(app.runtime)
    if hint:
        print(hint)
    return app.return_code or 0


def resume_hint(runtime: UiRuntime | None) -> str | None:
    """What to type to come back to the session just left (as Claude Code and Codex say on quit)."""
    session = runtime.session if runtime is not None else None
    if runtime is None or session is None or session.leaf_id is None:
        return None  # nothing was said, or an ephemeral run: nothing to resume
    from navtui.session.listing import short_id

    try:
        shown = short_id(session.session_id, Path(runtime.cwd))  # where `navtui -r` will be typed
    except OSError:  # a folder that cannot be listed: the id whole
        shown = session.session_id
    return f"navtui: to continue this session: navtui -c (or navtui -r {shown})"
