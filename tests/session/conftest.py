"""Fixtures for the session tests: a sessions root, message builders and a child-process runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from navtui.session.manager import SessionManager

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A sessions root of its own (NAVTUI_HOME is already a temp dir for every test)."""
    path = tmp_path / "sessions"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def session(project: Path, root: Path) -> SessionManager:
    return SessionManager.create(project, root=root)


@pytest.fixture
def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def spawn(script: str, *args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
