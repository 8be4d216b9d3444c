"""Hot reload with real files: saves, bad saves, deletions and new files each give the right result."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from navtui.themes.loader import ThemeRegistry, ThemeReload
from navtui.themes.watcher import DEBOUNCE_MS, watch_themes
from tests.themes.conftest import skip_if_the_machine_has_no_watch_left, theme_json, write_theme

# A guard against hangs, not a performance assertion: reloads normally arrive in ~0.2 s.
PATIENCE = 15.0


class Watch:
    def __init__(self, registry: ThemeRegistry, force_polling: bool | None = None) -> None:
        self.registry = registry
        self.force_polling = force_polling
        self.stop = asyncio.Event()
        self.results: asyncio.Queue[ThemeReload] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        async for result in watch_themes(self.registry, self.stop, force_polling=self.force_polling):
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
                    if self.task.done():  # the watch ended without a word: why, now
                        skip_if_the_machine_has_no_watch_left(self.task.exception())
                        raise AssertionError("the watch ended before it reported the probe") from None

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


async def test_polling_where_inotify_is_not_used(user_themes: Path) -> None:
    # watchfiles watches where inotify is missing or refused; force_polling asks for it everywhere.
    watch = Watch(ThemeRegistry(), force_polling=True)
    await watch.start(user_themes)
    try:
        write_theme(user_themes / "polled.json", theme_json("polled", accent="#abcdef"))
        result = await watch.wait_for(named("polled.json"))
        assert result.status == "added" and result.theme is not None
        assert result.theme.colors["accent"] == "#abcdef"
    finally:
        watch.stop.set()
        async with asyncio.timeout(PATIENCE):
            await watch.task


async def test_a_theme_rewritten_without_pause_is_still_reloaded(watch: Watch, user_themes: Path) -> None:
    # The reload waits for the folder to be quiet for DEBOUNCE_MS, but not for ever (MAX_WAIT_MS).
    path = user_themes / "busy.json"
    writes = 0

    async def rewrite() -> None:
        nonlocal writes
        for writes in range(1, 200):  # far past MAX_WAIT_MS, never quiet for DEBOUNCE_MS
            write_theme(path, theme_json("busy", accent=f"#0000{writes % 100:02d}"))
            await asyncio.sleep(DEBOUNCE_MS / 3000)

    writer = asyncio.create_task(rewrite())
    try:
        await watch.wait_for(named("busy.json"))
        assert not writer.done()  # reloaded while the writes went on
    finally:
        writer.cancel()


WATCH_ALONE = """
import asyncio, os, sys, threading
from pathlib import Path
from navtui.themes.loader import ThemeRegistry
from navtui.themes.watcher import DEBOUNCE_MS, watch_themes
from tests.themes.conftest import skip_if_the_machine_has_no_watch_left, theme_json, write_theme

async def main():
    registry = ThemeRegistry()
    stop = asyncio.Event()
    results = watch_themes(registry, stop)
    async def save():
        while True:  # until the watch is live
            write_theme(registry.user_dir / "seen.json", theme_json("seen"))
            await asyncio.sleep(0.1)
    saver = asyncio.create_task(save())
    async with asyncio.timeout(15):
        result = await anext(results)
    saver.cancel()
    print(result.path.name, len(os.listdir("/proc/self/task")), "watchfiles" in sys.modules)
    stop.set()
    await results.aclose()

asyncio.run(main())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")
def test_on_linux_the_watch_starts_no_thread_and_loads_no_watchfiles(navtui_home: Path) -> None:
    # watchfiles' watch runs two threads (its Rust notifier and the worker waiting on it) and loads its library
    # and multiprocessing: ~1 MB of the app (docs/speed.md). inotify is a descriptor the loop reads.
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root), NAVTUI_HOME=str(navtui_home))
    out = subprocess.run(
        [sys.executable, "-c", WATCH_ALONE], capture_output=True, text=True, env=env, cwd=root, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["seen.json", "1", "False"]


OUT_OF_DESCRIPTORS = """
import asyncio, errno, os, resource
import watchfiles
from navtui.themes.loader import ThemeRegistry
from navtui.themes.watcher import watch_themes

registry = ThemeRegistry()
registry.user_dir.mkdir(parents=True, exist_ok=True)

async def main():  # the loop's own descriptors made first
    stopped = asyncio.Event()
    stopped.set()
    async for _ in watchfiles.awatch(registry.user_dir, stop_event=stopped):  # its lazy imports done
        pass
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    held = []
    try:
        while True:
            held.append(os.open(os.devnull, os.O_RDONLY))
    except OSError:
        pass
    async def first():
        async for _ in watch_themes(registry, force_polling=False):
            break

    try:
        await asyncio.wait_for(first(), 10)
    except TimeoutError:  # an OSError too: first
        print("WATCHING")
    except OSError as exc:
        print(type(exc).__name__, errno.errorcode[exc.errno], exc.filename == str(registry.user_dir))

asyncio.run(main())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")
def test_a_watch_the_system_cannot_start_is_an_os_error_the_app_says(navtui_home: Path) -> None:
    """No descriptor or inotify instance left (fs.inotify.max_user_instances, 128, shared by every program of the
    user: reached on a busy machine): inotify fell back to watchfiles, whose notifier raised its own
    RuntimeError, which the app's worker did not expect: navtui ended with a traceback seconds after starting."""
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root), NAVTUI_HOME=str(navtui_home))
    out = subprocess.run(
        [sys.executable, "-c", OUT_OF_DESCRIPTORS],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    if out.stdout.split() == ["WATCHING"]:
        # About one start in three here (2026-11-28): a descriptor came free between the script's last open and
        # the watch's (the inotify watch then started and waited for changes, as it should), so the case this test
        # is for did not happen. It was a 60 s timeout that failed CI once; now said, and skipped.
        pytest.skip("a descriptor came free before the watch started: the watch ran, nothing to check")
    assert out.stdout.split() == ["OSError", "EMFILE", "True"]
