"""The inotify descriptor shared by the checkpoints' directory watch and the theme folders' hot reload."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from navtui.core.inotify import IN_CLOSE_WRITE, IN_CREATE, IN_DELETE, IN_MOVED_TO, Inotify

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux inotify")


def test_events_name_what_happened_in_each_watched_folder(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    inotify = Inotify.open()
    assert inotify is not None
    try:
        watches = {
            inotify.add(one, IN_CREATE | IN_CLOSE_WRITE | IN_DELETE): "one",
            inotify.add(two, IN_MOVED_TO): "two",
        }
        assert all(wd >= 0 for wd in watches)
        assert list(inotify.events()) == []  # nothing queued: no wait
        (one / "a.json").write_text("{}")
        (tmp_path / "b.tmp").write_text("x")
        (tmp_path / "b.tmp").rename(two / "b.json")
        (one / "a.json").unlink()
        seen = [(watches[wd], mask, name) for wd, mask, name in inotify.events()]
        assert seen == [
            ("one", IN_CREATE, b"a.json"),
            ("one", IN_CLOSE_WRITE, b"a.json"),
            ("two", IN_MOVED_TO, b"b.json"),
            ("one", IN_DELETE, b"a.json"),
        ]
        assert inotify.add(tmp_path / "gone", IN_CREATE) < 0  # refused, not raised
    finally:
        inotify.close()
    assert inotify.fd == -1
    inotify.close()  # twice is harmless
