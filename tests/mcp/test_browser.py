"""The sign-in's browser (``/mcp login``, ``navtui mcp login``) never comes from the workspace: a repository that
ships ``xdg-open``, ``x-www-browser``, ``w3m`` or the program ``$BROWSER`` names, with ``.`` or an empty entry on
``PATH``, had it run with the authorization URL (Python's ``webbrowser`` searched every ``PATH`` entry)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tools.shell.test_lifetime import eventually

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="desktop openers as on Linux")

URL = "http://127.0.0.1:9/authorize?state=abc"
PLANTED = ("xdg-open", "gio", "x-www-browser", "firefox", "www-browser", "w3m", "lynx", "my-browser")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A workspace holding an executable of each name that leaves ``ran-NAME`` when run."""
    ws = tmp_path / "repo"
    ws.mkdir()
    for name in PLANTED:
        script = ws / name
        script.write_text(f"#!/bin/sh\ntouch '{ws}/ran-{name}'\n")
        script.chmod(0o755)
    return ws


def system_program(folder: Path, name: str) -> Path:
    """A program in an absolute folder that writes the URL it got and its PATH to ``opened``. The tests' PATH
    holds that folder only (and the workspace): the machine's own openers (``/usr/bin/gio``) stay out of it."""
    folder.mkdir(exist_ok=True)
    script = folder / name
    script.write_text(
        f'#!/bin/sh\nprintf "%s\\n%s\\n" "$1" "$PATH" > "{folder}/opened.part"\n'
        f'/bin/mv "{folder}/opened.part" "{folder}/opened"\n'
    )
    script.chmod(0o755)
    return script


def open_in(repo: Path, path: str, *, console_ok: bool = False, **env: str) -> str:
    """``open_browser`` run by a fresh Python in ``repo`` (the app's cwd) with this PATH and desktop."""
    code = "import sys; from navtui.mcp.browser import open_browser\n"
    code += f"print(open_browser(sys.argv[1], console_ok={console_ok}))"
    clean = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")}
    done = subprocess.run(
        [sys.executable, "-c", code, URL],
        cwd=repo,
        env={**clean, "PYTHONPATH": str(Path(__file__).resolve().parents[2]), "PATH": path, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def ran(repo: Path) -> list[str]:
    return sorted(p.name for p in repo.glob("ran-*"))


@pytest.mark.parametrize("first", [".", ""], ids=["dot", "empty-entry"])
def test_the_desktop_opener_is_never_the_workspaces(repo: Path, tmp_path: Path, first: str) -> None:
    system = tmp_path / "bin"
    system_program(system, "firefox")  # the machine has a browser, and no xdg-open
    assert open_in(repo, f"{first}:{system}", DISPLAY=":0") == "True"
    assert eventually(lambda: (system / "opened").exists(), seconds=60)
    url, path = (system / "opened").read_text().splitlines()
    assert url == URL
    assert all(os.path.isabs(folder) for folder in path.split(":")), path  # what it starts by name too
    assert ran(repo) == []


def test_browser_names_a_program_found_on_absolute_folders_only(repo: Path, tmp_path: Path) -> None:
    system = tmp_path / "bin"
    system_program(system, "my-browser")
    out = open_in(repo, f".:{system}", console_ok=True, BROWSER="my-browser %s")
    assert out == "True"
    assert (system / "opened").read_text().splitlines()[0] == URL  # a foreground command: done when it returns
    assert ran(repo) == []


def test_a_terminal_browser_only_the_workspace_has_is_not_run(repo: Path, tmp_path: Path) -> None:
    assert open_in(repo, f".::{tmp_path}", console_ok=True, BROWSER="w3m") == "False"
    assert open_in(repo, f".::{tmp_path}", console_ok=True, DISPLAY=":0", BROWSER="www-browser:lynx") == "False"
    assert ran(repo) == []


def test_a_foreground_browser_is_never_run_under_the_apps_screen(tmp_path: Path, repo: Path) -> None:
    system = tmp_path / "bin"
    system_program(system, "my-browser")
    assert open_in(repo, f"{system}", BROWSER="my-browser %s") == "False"
    assert not (system / "opened").exists()
    assert open_in(repo, f"{system}", BROWSER="my-browser %s &") == "True"  # started in background
    assert eventually(lambda: (system / "opened").exists(), seconds=60)
