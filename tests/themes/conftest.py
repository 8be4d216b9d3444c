"""Theme test helpers: valid theme JSON to start from, writing it to real files, and omp's own theme files.

omp's theme files are reference data kept outside the repository: ``NAVTUI_OMP_THEMES`` names their folder;
otherwise ``shared/reference/omp-themes`` beside the checkout (or beside a folder above it, for a worktree) is
used. Without them the tests that read them are skipped, saying why; every other theme test still runs.
"""

from __future__ import annotations

import copy
import errno
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from navtui.themes.loader import BUILTIN_DIR

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"


def _omp_theme_files() -> tuple[list[Path], str]:
    """omp's theme files, or none and why: where they were looked for."""
    configured = os.environ.get("NAVTUI_OMP_THEMES")
    if configured:
        folders = [Path(configured).expanduser()]
        where = f"NAVTUI_OMP_THEMES={configured}"
    else:
        folders = [parent / "shared" / "reference" / "omp-themes" for parent in REPO_ROOT.parents]
        where = "no shared/reference/omp-themes beside the checkout"
    for folder in folders:
        if folder.is_dir():
            files = sorted(folder.glob("*.json"))
            return files, "" if files else f"{folder} holds no *.json"
    return [], where if not configured else f"{where} is not a folder"


OMP_THEME_FILES, _ABSENT = _omp_theme_files()
OMP_THEMES_MISSING = f"omp's theme files are not here ({_ABSENT}): set NAVTUI_OMP_THEMES to their folder"


def omp_theme_params(load: Callable[[Path], Any] = lambda path: path) -> list[Any]:
    """pytest params, one for each of omp's theme files (passed through ``load``), or one skipped with the reason."""
    if not OMP_THEME_FILES:
        return [pytest.param(None, id="omp-themes-absent", marks=pytest.mark.skip(reason=OMP_THEMES_MISSING))]
    return [pytest.param(load(path), id=f"omp-{path.name}") for path in OMP_THEME_FILES]


def builtin_json(name: str = "dark") -> dict[str, Any]:
    return json.loads((BUILTIN_DIR / f"{name}.json").read_text())


def theme_json(name: str, accent: str = "#ff8800", base: str = "dark") -> dict[str, Any]:
    """A valid theme: a built-in's JSON under another name, with its accent var replaced."""
    data = copy.deepcopy(builtin_json(base))
    data["name"] = name
    data["vars"]["accent"] = accent
    return data


def write_theme(path: Path, data: dict[str, Any] | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


@pytest.fixture
def user_themes(navtui_home: Path) -> Path:
    directory = navtui_home / "themes"
    directory.mkdir(exist_ok=True)
    return directory


def skip_if_the_machine_has_no_watch_left(error: BaseException | str | None) -> None:
    """A watch that could not start (its error, or the app's notice saying so): skipped, saying why, when the
    user's inotify instances or watches are used up (fs.inotify.max_user_instances, 128 by default, shared by every
    program of the user on the machine: other suites and apps took them); the test fails on anything else, this
    process out of descriptors included. Said at once: the tests waited out their 15 s and failed."""
    if isinstance(error, OSError):
        used_up = error.errno in (errno.EMFILE, errno.ENFILE, errno.ENOSPC)
    else:
        used_up = isinstance(error, str) and "fs.inotify.max_user_instances" in error  # the app's words for those
    if used_up:
        try:
            os.close(os.dup(2))  # a descriptor is there to be had: what ran out was inotify's
        except OSError:
            used_up = False
    if used_up:
        pytest.skip(f"no inotify instance or watch left for this user on this machine: {error}")
    if isinstance(error, BaseException):
        raise error
    if error is not None:
        raise AssertionError(error)
