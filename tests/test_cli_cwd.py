"""A working directory the user may not read or enter is a usage error naming it and the fix, not a traceback.

``navtui --cwd /root`` (or started inside a folder whose permissions were taken away) raised PermissionError at
the first look inside it (``/root/.git``) and ended with a traceback. Root reads every folder: run as a user.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.geteuid() == 0, reason="root reads and enters every folder: run as a user")


@pytest.mark.parametrize("mode", [0o000, 0o600, 0o300], ids=["no-rights", "no-search", "no-read"])
def test_a_directory_the_user_cannot_open_is_named_with_the_fix(tmp_path: Path, mode: int) -> None:
    closed = tmp_path / "closed"
    closed.mkdir()
    closed.chmod(mode)
    try:
        for argv in (["--cwd", str(closed), "--print", "hi"], ["--cwd", str(closed)]):
            run = subprocess.run(
                [sys.executable, "-m", "navtui", *argv],
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
                timeout=120,
            )
            assert run.returncode == 2, run.stderr
            assert "Traceback" not in run.stderr
            assert f"navtui: cannot open the directory {closed}: permission denied" in run.stderr
            assert f"chmod u+rx {closed}" in run.stderr
    finally:
        closed.chmod(0o700)
