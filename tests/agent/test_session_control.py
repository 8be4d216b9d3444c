"""SessionControl alone: which session file a run writes to, and recording the model it runs on once."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.agent.session_control import SessionControl
from navtui.config.launch import LaunchOptions
from navtui.core.errors import NavtuiError
from tests.agent.test_runtime import open_descriptors_of


def model_changes(sessions: SessionControl) -> list[tuple[str | None, str | None]]:
    assert sessions.current is not None
    return [entry.resolved for entry in sessions.current.entries if entry.type == "model_change"]


def test_the_model_is_recorded_once_per_root_and_on_every_switch(workspace: Path) -> None:
    sessions, warnings = SessionControl.open(workspace, LaunchOptions(cwd=workspace))
    assert warnings == [] and sessions.current is not None
    sessions.record_model(("ollama", "a"), "off", None)
    sessions.record_model(("ollama", "a"), "off", None)
    assert model_changes(sessions) == [("ollama", "a")]
    sessions.record_model_change("ollama", "b")  # /model
    assert model_changes(sessions) == [("ollama", "a"), ("ollama", "b")]
    sessions.clear()  # a new root says its model again
    sessions.record_model(("ollama", "b"), "off", ("ollama", "b"))
    assert model_changes(sessions) == [("ollama", "a"), ("ollama", "b"), ("ollama", "b")]
    sessions.current.close()


def test_continue_without_an_earlier_session_starts_one_and_says_so(workspace: Path) -> None:
    sessions, warnings = SessionControl.open(workspace, LaunchOptions(cwd=workspace, continue_session=True))
    assert warnings == ["No earlier session in this directory; starting a new one."]
    assert sessions.current is not None
    first = sessions.current
    sessions.new(workspace)
    assert sessions.current is not first and sessions.current.path != first.path
    sessions.current.close()


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts descriptors in /proc")
def test_new_closes_the_session_file_it_leaves(workspace: Path) -> None:
    # /new replaced the session without closing it: its append descriptor stayed open for the rest of the run,
    # one more for every /new.
    sessions, _ = SessionControl.open(workspace, LaunchOptions(cwd=workspace))
    assert sessions.current is not None
    sessions.record_model(("ollama", "a"), "off", None)
    sessions.record_model_change("ollama", "b")  # appended to (the first write creates the file), so it is open
    sessions.sync()
    left = sessions.current.path.resolve()
    assert open_descriptors_of(left)
    sessions.new(workspace)
    assert open_descriptors_of(left) == []
    assert b'"model_change"' in left.read_bytes()
    assert sessions.current is not None
    sessions.current.close()
    sessions.current.close()


def test_an_ephemeral_run_has_no_file_to_name(workspace: Path) -> None:
    sessions, warnings = SessionControl.open(workspace, LaunchOptions(cwd=workspace, ephemeral=True))
    assert sessions.current is None and warnings == [] and sessions.path_entries() == []
    sessions.record_model(("ollama", "a"), "off", None)  # nothing to write to, nothing raised
    with pytest.raises(NavtuiError, match="no session file"):
        sessions.set_name("x")
