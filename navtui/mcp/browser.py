"""Opening a sign-in URL in the user's browser (``/mcp login``, ``navtui mcp login``), with programs found on
``PATH``'s absolute folders only.

Python's ``webbrowser`` looks its candidates up with ``shutil.which`` and starts them by bare name, so an empty
``PATH`` entry or ``.`` (the current folder: the workspace) let a repository's own ``xdg-open``, ``x-www-browser``
or ``w3m`` run on a sign-in, with the authorization URL. navtui picks the program itself, in the order
``webbrowser`` does, finds it with ``core.programs.find_program`` and starts it by its full path, with ``PATH``
cut to its absolute folders too (``xdg-open`` is a shell script that starts the next program by name).

- ``$BROWSER``: ``os.pathsep``-separated commands, tried first. One with ``%s`` is split as a shell would and gets
  the URL there; a trailing ``&`` starts it in the background. Any other is a program given the URL. A
  command that is not one of the desktop programs below runs in the foreground (it may be a terminal browser):
  only where navtui does not own the terminal (``console_ok``).
- on a desktop (``DISPLAY``, ``WAYLAND_DISPLAY``, macOS): the desktop's opener, then known browsers, started
  in their own session with no terminal.
- then, with ``console_ok`` only, a browser that runs in the terminal (``www-browser``, ``w3m``, ...).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import sys

from navtui.core.programs import absolute_path_entries, find_program

# Programs that open a URL and return, or open a window of their own: (name, arguments before the URL).
DESKTOP: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("xdg-open", ()),
    ("gio", ("open", "--")),
    ("x-www-browser", ()),
    ("firefox", ()),
    ("chromium", ()),
    ("chromium-browser", ()),
    ("google-chrome", ()),
)
MACOS = (("open", ()),)
# Browsers that draw in the terminal: never under the app's screen.
CONSOLE = ("www-browser", "w3m", "lynx", "links", "elinks")


def open_browser(url: str, *, console_ok: bool) -> bool:
    """Open ``url`` in the user's browser; False when none can be opened here (SSH, no display, none found)."""
    if sys.platform == "win32":  # no PATH search by name there: the shell's association opens it
        import webbrowser

        with contextlib.suppress(webbrowser.Error, OSError):
            return bool(webbrowser.open(url))
        return False
    graphical = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or sys.platform == "darwin"
    chosen = os.environ.get("BROWSER", "")
    if not graphical and not chosen:
        return False
    for command in (entry for entry in chosen.split(os.pathsep) if entry.strip()):
        opened = _open_command(command, url, console_ok)
        if opened is not None:
            return opened
    if graphical:
        for name, before in MACOS if sys.platform == "darwin" else DESKTOP:
            path = find_program(name)
            if path is not None and _start([path, *before, url], background=True):
                return True
    if console_ok:
        for name in CONSOLE:
            path = find_program(name)
            if path is not None:
                return _start([path, url], background=False)
    return False


def _open_command(command: str, url: str, console_ok: bool) -> bool | None:
    """One ``$BROWSER`` entry: whether it opened the URL, None when it cannot run here (not found, or a
    foreground program under the app's screen)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    background = bool(words) and words[-1] == "&"
    words = words[:-1] if background else words
    if not words:
        return None
    argv = [word.replace("%s", url) for word in words] if "%s" in command else [*words, url]
    path = find_program(argv[0])
    if path is None:
        return None
    desktop = os.path.basename(path) in {name for name, _ in DESKTOP} or background
    if not desktop and not console_ok:
        return None
    return _start([path, *argv[1:]], background=desktop)


def _start(argv: list[str], *, background: bool) -> bool:
    """Run the browser with ``PATH``'s absolute folders only; a desktop one in its own session, not waited for."""
    env = {**os.environ, "PATH": absolute_path_entries()}
    try:
        if background:
            subprocess.Popen(
                argv,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            return True
        return subprocess.run(argv, env=env, check=False).returncode == 0
    except OSError:
        return False
