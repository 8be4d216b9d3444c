"""Long-session benchmark: open a 5,000-entry session in navtui, against every entry mounted as a stock
``Static(rich Markdown)`` widget in the same run.

The session (1,250 turns of: user prompt, assistant text + tool call, tool result with a diff, assistant
Markdown answer) is written through ``SessionManager`` into a temporary NAVTUI_HOME. Then, in a fresh
process each (``--child``), headless at 120x40:

* navtui: ``Runtime.create`` with ``--resume`` (the session is parsed), the app up, then the transcript
  (re)loaded -> first frame showing the tail; scroll to the end; page up; adding one entry; idle key -> frame;
  scrolling to the top (older entries mount); peak RSS;
* stock: the same entries as one ``Static`` each (Rich Markdown / Syntax), all mounted.

Usage: ``python bench/bench_transcript.py [--entries 5000]`` (about a minute; the stock run is the slow part).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (  # noqa: E402
    ROOT,
    emit,
    fmt_ms,
    frame_waiter,
    install_frame_hook,
    make_markdown,
    next_frame,
    peak_rss_mb,
    verdict,
)

MODEL = "qwen2.5-coder:7b"
TARGETS = {"open_ms": 250.0, "scroll_end_ms": 50.0, "add_ms": 20.0, "rss_mb": 150.0, "key_p50": 10.0}
DIFF = "".join(f"@@ -{i},3 +{i},3 @@\n context line {i}\n-old value {i}\n+new value {i}\n" for i in range(1, 6))


def write_session(cwd: Path, entries: int) -> Path:
    from navtui.core.messages import AssistantMessage, TextBlock, ToolCall, ToolResultMessage, UserMessage
    from navtui.session.manager import SessionManager

    session = SessionManager.create(cwd)
    for turn in range(entries // 4):
        call = ToolCall(id=f"call{turn}", name="edit", arguments={"path": f"src/module_{turn}.py"})
        session.append_message(UserMessage(content=f"Please fix the parser bug number {turn} in module {turn}."))
        session.append_message(
            AssistantMessage(content=[TextBlock(text="Let me edit the module."), call], stop_reason="tool_use")
        )
        session.append_message(
            ToolResultMessage(
                tool_call_id=call.id,
                tool_name="edit",
                content=[TextBlock(text=f"Edited src/module_{turn}.py")],
                details={"diff": DIFF},
            )
        )
        session.append_message(AssistantMessage(content=[TextBlock(text=make_markdown(900, seed=turn))]))
    session.sync()
    session.close()
    return session.path


async def measure_navtui(session_path: Path, cwd: Path) -> dict[str, Any]:
    from navtui.agent.runtime import LaunchOptions, Runtime
    from navtui.app.app import NavtuiApp
    from navtui.app.screens.main import MainScreen
    from navtui.widgets.items import UserItem

    started = time.perf_counter()
    runtime = Runtime.create(
        LaunchOptions(cwd=cwd, provider="ollama", base_url="http://127.0.0.1:9", model=MODEL, resume=str(session_path))
    )
    created = time.perf_counter()
    app = NavtuiApp(runtime, animate=False, check_provider=False, watch_themes=False)
    result: dict[str, Any] = {"kind": "navtui", "runtime_create_ms": (created - started) * 1000}
    frames = install_frame_hook(app)  # before the app runs: its very first frame is timed
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await next_frame(app, frames)
        result["app_start_to_frame_ms"] = (frames["frames"][0] - created) * 1000
        screen = app.screen
        assert isinstance(screen, MainScreen)
        transcript = screen.transcript
        entries = list(transcript.items)
        result["entries"] = len(entries)
        await asyncio.sleep(0.3)
        # app up -> the whole session (re)loaded and its tail on screen
        t0 = time.perf_counter()
        transcript.load(entries)
        await next_frame(app, frames)
        result["open_ms"] = (time.perf_counter() - t0) * 1000
        await asyncio.sleep(0.2)
        await app.workers.wait_for_complete()  # the rest of the window mounts after the first frame
        result.update(await _interactions(app, frames, transcript, lambda: transcript.add(UserItem("one more"))))
        t0 = time.perf_counter()
        transcript.scroll_home(animate=False)
        await next_frame(app, frames)
        result["scroll_home_ms"] = (time.perf_counter() - t0) * 1000
        await asyncio.sleep(0.5)
        await app.workers.wait_for_complete()
        result["mounted_after_scroll_home"] = len(transcript.item_widgets)
        result["widgets"] = len(list(app.screen.walk_children()))
    result["peak_rss_mb"] = peak_rss_mb()
    return result


async def _interactions(app: Any, frames: dict[str, Any], view: Any, add_one: Any) -> dict[str, float]:
    from textual import events

    out: dict[str, float] = {}
    t0 = time.perf_counter()
    view.scroll_end(animate=False)
    await next_frame(app, frames)
    out["scroll_end_ms"] = (time.perf_counter() - t0) * 1000
    pages = []
    for _ in range(5):
        t0 = time.perf_counter()
        view.scroll_page_up(animate=False)
        await next_frame(app, frames)
        pages.append((time.perf_counter() - t0) * 1000)
    out["page_up_ms"] = sorted(pages)[2]
    view.scroll_end(animate=False)
    await next_frame(app, frames)
    adds = []
    for _ in range(5):
        t0 = time.perf_counter()
        add_one()
        await asyncio.sleep(0)
        await next_frame(app, frames)
        adds.append((time.perf_counter() - t0) * 1000)
    out["add_ms"] = sorted(adds)[2]
    keys = []
    for index in range(10):
        frame = frame_waiter(frames)
        t0 = time.perf_counter()
        await app._post_message(events.Key("x", "x") if index % 2 == 0 else events.Key("backspace", None))
        keys.append((await frame - t0) * 1000)
        await asyncio.sleep(0.05)
    out["key_p50_ms"] = sorted(keys)[5]
    out["key_max_ms"] = max(keys)
    return out


async def measure_stock(session_path: Path) -> dict[str, Any]:
    """Every entry mounted: one Static per entry with Rich Markdown (text) or Syntax (diffs)."""
    from rich.markdown import Markdown as RichMarkdown
    from rich.syntax import Syntax
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll
    from textual.widgets import Static, TextArea

    from navtui.core.messages import AssistantMessage, ToolResultMessage, UserMessage
    from navtui.session.manager import SessionManager

    renderables: list[Any] = []
    for entry in SessionManager.open(session_path).display_items():
        message = getattr(entry, "message", None)
        if isinstance(message, UserMessage | AssistantMessage) and message.text:
            renderables.append(RichMarkdown(message.text))
        elif isinstance(message, ToolResultMessage):
            renderables.append(Syntax((message.details or {}).get("diff", message.text), "diff"))

    class Stock(App[None]):
        CSS = "#chat { height: 1fr; scrollbar-gutter: stable; } Static { height: auto; } TextArea { height: 3; }"

        def compose(self) -> ComposeResult:
            yield VerticalScroll(id="chat")
            yield TextArea()

    app = Stock()
    result: dict[str, Any] = {"kind": "stock", "entries": len(renderables)}
    async with app.run_test(size=(120, 40)) as pilot:
        frames = install_frame_hook(app)
        await pilot.pause()
        chat = app.query_one("#chat", VerticalScroll)
        app.query_one(TextArea).focus()
        t0 = time.perf_counter()
        with app.batch_update():
            await chat.mount_all([Static(r) for r in renderables])
        chat.scroll_end(animate=False)
        await next_frame(app, frames)
        result["open_ms"] = (time.perf_counter() - t0) * 1000
        result.update(await _interactions(app, frames, chat, lambda: chat.mount(Static("one more"))))
        result["widgets"] = len(list(app.screen.walk_children()))
    result["peak_rss_mb"] = peak_rss_mb()
    return result


def spawn(kind: str, session: Path, cwd: Path, home: str) -> dict[str, Any]:
    env = dict(os.environ, NAVTUI_HOME=home, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, __file__, "--child", kind, "--session", str(session), "--cwd", str(cwd)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    if not lines:
        raise SystemExit(f"child failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return json.loads(lines[-1][7:])


def report(navtui: dict[str, Any], stock: dict[str, Any]) -> None:
    rows = [
        ("open (load -> tail on screen)", "open_ms", TARGETS["open_ms"]),
        ("scroll to end", "scroll_end_ms", TARGETS["scroll_end_ms"]),
        ("page up", "page_up_ms", 33.0),
        ("add one entry", "add_ms", TARGETS["add_ms"]),
        ("key -> frame p50 (idle)", "key_p50_ms", TARGETS["key_p50"]),
        ("key -> frame max (idle)", "key_max_ms", 33.0),
        ("peak RSS MB", "peak_rss_mb", TARGETS["rss_mb"]),
    ]
    print(f"\n{navtui['entries']} entries            navtui     stock    target")
    for label, key, target in rows:
        value = navtui.get(key)
        print(f"{label:<30} {fmt_ms(value)}  {fmt_ms(stock.get(key))}   <= {target:g}  {verdict(value, target)}")
    print(
        f"navtui: session parse + runtime {navtui['runtime_create_ms']:.0f} ms, app start -> first frame with the tail "
        f"{navtui['app_start_to_frame_ms']:.0f} ms, scroll to top {navtui['scroll_home_ms']:.0f} ms "
        f"({navtui['mounted_after_scroll_home']} entries mounted after loading earlier ones), {navtui['widgets']} widgets "
        f"(stock {stock['widgets']})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=5000)
    parser.add_argument("--child", choices=["navtui", "stock"])
    parser.add_argument("--session", type=Path)
    parser.add_argument("--cwd", type=Path)
    args = parser.parse_args()
    if args.child == "navtui":
        emit(asyncio.run(measure_navtui(args.session, args.cwd)))
        return
    if args.child == "stock":
        emit(asyncio.run(measure_stock(args.session)))
        return
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        os.environ["NAVTUI_HOME"] = home
        print(f"writing a {args.entries}-entry session ...", flush=True)
        session = write_session(Path(cwd), args.entries)
        print(f"  {session.stat().st_size / 1e6:.1f} MB; measuring navtui ...", flush=True)
        navtui = spawn("navtui", session, Path(cwd), home)
        print("measuring stock (every entry mounted) ...", flush=True)
        stock = spawn("stock", session, Path(cwd), home)
    report(navtui, stock)


if __name__ == "__main__":
    main()
