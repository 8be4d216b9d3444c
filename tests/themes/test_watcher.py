"""Hot reload with real files: saves, bad saves, deletions and new files each give the right result."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from navtui.themes.loader import ThemeRegistry, ThemeReload
from navtui.themes.watcher import watch_themes
from tests.themes.conftest import theme_json, write_theme

# A guard against hangs, not a performance assertion: reloads normally arrive in ~0.2 s.
PATIENCE = 15.0


class Watch:
    def __init__(self, registry: ThemeRegistry) -> None:
        self.registry = registry
        self.stop = asyncio.Event()
        self.results: asyncio.Queue[ThemeReload] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        async for result in watch_themes(self.registry, self.stop):
            await self.results.put(result)

    async def start(self, directory: Path) -> None:
        self.task = asyncio.create_task(self._run())
        # The watch is live once a probe file written after start is reported.
        probe = directory / "probe.json"
        async with asyncio.timeout(PATIENCE):
            while True:
                write_theme(probe, theme_json("probe"))
                try:
                    await self.wait_for(lambda r: r.path.name == "probe.json", patience=0.3)
                    return
                except TimeoutError:
                    continue

    async def wait_for(self, predicate: Callable[[ThemeReload], bool], patience: float = PATIENCE) -> ThemeReload:
        async with asyncio.timeout(patience):
            while True:
                result = await self.results.get()
                if predicate(result):
                    return result


@pytest.fixture
async def watch(user_themes: Path) -> AsyncIterator[Watch]:
    watch = Watch(ThemeRegistry())
    await watch.start(user_themes)
    yield watch
    watch.stop.set()
    assert watch.task is not None
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(PATIENCE):
            await watch.task


def named(name: str) -> Callable[[ThemeReload], bool]:
    return lambda result: result.path.name == name


async def test_new_file_is_announced(watch: Watch, user_themes: Path) -> None:
    write_theme(user_themes / "fresh.json", theme_json("fresh", accent="#123456"))
    result = await watch.wait_for(named("fresh.json"))
    assert result.status == "added" and result.theme is not None
    assert result.theme.colors["accent"] == "#123456"
    assert "fresh" in watch.registry.names()


async def test_rewrite_reloads_the_new_colours(watch: Watch, user_themes: Path) -> None:
    path = write_theme(user_themes / "mine.json", theme_json("mine", accent="#111111"))
    await watch.wait_for(lambda r: named("mine.json")(r) and r.ok)
    write_theme(path, theme_json("mine", accent="#222222"))
    result = await watch.wait_for(lambda r: named("mine.json")(r) and r.ok and r.theme.colors["accent"] == "#222222")
    assert result.status == "updated"
    assert watch.registry.get("mine").colors["accent"] == "#222222"


async def test_invalid_save_keeps_the_last_good_theme(watch: Watch, user_themes: Path) -> None:
    path = write_theme(user_themes / "mine.json", theme_json("mine", accent="#111111"))
    await watch.wait_for(lambda r: named("mine.json")(r) and r.ok)
    write_theme(path, '{"name": "mine", "colors": {')
    result = await watch.wait_for(named("mine.json"))
    assert result.status == "invalid"
    assert result.error is not None and "not valid JSON" in str(result.error)
    assert result.theme is not None and result.theme.colors["accent"] == "#111111"
    assert watch.registry.get("mine").colors["accent"] == "#111111"


async def test_deleted_file_keeps_the_current_theme(watch: Watch, user_themes: Path) -> None:
    path = write_theme(user_themes / "mine.json", theme_json("mine", accent="#111111"))
    await watch.wait_for(lambda r: named("mine.json")(r) and r.ok)
    path.unlink()
    result = await watch.wait_for(named("mine.json"))
    assert result.status == "deleted"
    assert result.theme is not None and watch.registry.get("mine").colors["accent"] == "#111111"


async def test_non_theme_files_are_ignored(watch: Watch, user_themes: Path) -> None:
    (user_themes / "notes.txt").write_text("hello")
    (user_themes / ".mine.json.123.tmp").write_text("{")
    write_theme(user_themes / "after.json", theme_json("after"))
    result = await watch.wait_for(lambda r: r.path.name != "probe.json")
    assert result.path.name == "after.json"


async def test_stop_event_ends_the_watch(user_themes: Path) -> None:
    watch = Watch(ThemeRegistry())
    await watch.start(user_themes)
    watch.stop.set()
    assert watch.task is not None
    async with asyncio.timeout(PATIENCE):
        await watch.task
    assert watch.task.done() and watch.task.exception() is None


async def test_cancelling_the_consumer_stops_the_watch(user_themes: Path) -> None:
    watch = Watch(ThemeRegistry())
    await watch.start(user_themes)
    assert watch.task is not None
    watch.task.cancel()
    with pytest.raises(asyncio.CancelledError):
        async with asyncio.timeout(PATIENCE):
            await watch.task


async def test_project_folder_is_watched_too(user_themes: Path, workspace: Path) -> None:
    (workspace / ".git").mkdir()
    project_themes = workspace / ".navtui" / "themes"
    project_themes.mkdir(parents=True)
    watch = Watch(ThemeRegistry(workspace))
    await watch.start(user_themes)
    try:
        write_theme(project_themes / "team.json", theme_json("team"))
        result = await watch.wait_for(named("team.json"))
        assert result.status == "added" and result.theme is not None and result.theme.source == "project"
    finally:
        watch.stop.set()
        async with asyncio.timeout(PATIENCE):
            await watch.task
