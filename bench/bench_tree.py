"""Benchmark the session tree screen on a 5,000-entry session with branches.

Measures, in a headless app at 120x40: building the rows (get_tree + flatten), pushing the tree screen until it
is painted, and the time per key for moving (down, page down, end/home), folding, changing the filter mode and
typing a search. The same tree in stock Textual's ``Tree`` widget is measured in the same run for comparison.
Target (issue 7): the tree opens in < 300 ms and moves without lag (a key well under a 16 ms frame budget).
Run: ``.venv/bin/python bench/bench_tree.py [--entries N] [--repeat N]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from textual import events  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.widgets import Static, Tree  # noqa: E402

from navtui.app.screens.tree import TreeScreen  # noqa: E402
from navtui.session.manager import SessionManager  # noqa: E402
from navtui.themes.textual_theme import nav_variable_defaults  # noqa: E402
from navtui.widgets.tree_rows import TreeModel  # noqa: E402
from navtui.widgets.tree_view import TreeView  # noqa: E402

SIZE = (120, 40)


def write_session(directory: Path, entries: int) -> Path:
    """A coding session: prompt, tool call, result, answer; every ~40 entries a retry branches off."""
    path = directory / "2025-01-01T00-00-00-000Z_0123456789abcdef.jsonl"
    lines = [json.dumps({"type": "session", "version": 3, "id": "0123456789abcdef", "cwd": str(directory)})]
    count = 0
    leaf: str | None = None
    branch_points: list[str] = []

    def add(parent: str | None, body: dict[str, Any]) -> str:
        nonlocal count
        count += 1
        entry_id = f"{count:08x}"
        stamp = f"2025-01-01T{(count // 3600) % 24:02d}:{(count // 60) % 60:02d}:{count % 60:02d}.000Z"
        lines.append(json.dumps({"id": entry_id, "parentId": parent, "timestamp": stamp, **body}))
        return entry_id

    turn = 0
    while count < entries:
        turn += 1
        parent = leaf
        if branch_points and turn % 10 == 0:
            parent = branch_points[-3] if len(branch_points) > 3 else branch_points[0]  # retry an older prompt
        user = add(parent, {"type": "message", "message": {"role": "user", "content": f"step {turn}: fix test {turn}"}})
        call = {"type": "toolCall", "id": f"c{turn}", "name": "read", "arguments": {"path": f"src/mod{turn}.py"}}
        calls = add(user, {"type": "message", "message": {"role": "assistant", "content": [call]}})
        result = {
            "role": "toolResult",
            "toolCallId": f"c{turn}",
            "toolName": "read",
            "content": [{"type": "text", "text": "x = 1"}],
        }
        tool = add(calls, {"type": "message", "message": result})
        text = {"type": "text", "text": f"Looked at mod{turn}.py; the fix is a guard clause in handler {turn}."}
        leaf = add(tool, {"type": "message", "message": {"role": "assistant", "content": [text]}})
        branch_points.append(leaf)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class Host(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return nav_variable_defaults()

    def compose(self) -> ComposeResult:
        yield Static("transcript")


class StockTree(App[None]):
    """Textual's own Tree widget with one node per entry, for comparison."""

    def __init__(self, session: SessionManager) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        yield Static("transcript")

    async def show(self) -> None:
        # Nested one level per branch point, chains flat (one node per entry nested would hit Textual's
        # recursive _build: RecursionError on a 5,000-entry chain).
        tree: Tree[str] = Tree("session")
        stack = [(tree.root, node) for node in reversed(self.session.get_tree())]
        while stack:
            parent, node = stack.pop()
            label = node.entry.type if node.entry.type != "message" else node.entry.message.role
            if len(node.children) > 1:
                branch = parent.add(label, expand=True)
                stack.extend((branch, child) for child in reversed(node.children))
            else:
                parent.add_leaf(label)
                stack.extend((parent, child) for child in node.children)
        tree.root.expand()
        await self.mount(tree)
        tree.focus()


def install_frame_hook(app: App[Any]) -> list[asyncio.Future[float]]:
    """Wrap ``App._display`` so a test can wait for the next painted frame."""
    waiters: list[asyncio.Future[float]] = []
    original = app._display

    def display(screen: Any, renderable: Any) -> None:
        original(screen, renderable)
        if renderable is not None:
            now = time.perf_counter()
            while waiters:
                future = waiters.pop()
                if not future.done():
                    future.set_result(now)

    app._display = display  # type: ignore[method-assign]
    return waiters


async def key_to_frame(app: App[Any], waiters: list[asyncio.Future[float]], key: str, count: int) -> list[float]:
    """Post ``key`` as the driver would and time until the frame it causes is painted."""
    out = []
    for _ in range(count):
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        waiters.append(future)
        start = time.perf_counter()
        app.post_message(events.Key(key, key if len(key) == 1 else None))
        out.append(await asyncio.wait_for(future, 10) - start)
        await asyncio.sleep(0.02)  # let the next key arrive after this frame, as typing does
    return out


async def measure_navtui(session: SessionManager, repeat: int) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {"rows built": [], "tree screen painted": []}
    for _ in range(repeat):
        start = time.perf_counter()
        model = TreeModel(session.get_tree(), session.leaf_id)
        model.visible()
        figures["rows built"].append(time.perf_counter() - start)
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        waiters = install_frame_hook(app)
        for _ in range(repeat):
            future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
            waiters.append(future)
            start = time.perf_counter()
            await app.push_screen(TreeScreen(session))
            figures["tree screen painted"].append(await asyncio.wait_for(future, 10) - start)
            await pilot.pause()
            view = app.screen.query_one(TreeView)
            assert len(view.rows) > 1000, len(view.rows)
            app.pop_screen()
            await pilot.pause()
        await app.push_screen(TreeScreen(session))
        await pilot.pause()
        figures["key: up"] = await key_to_frame(app, waiters, "up", 100)
        figures["key: page down"] = await key_to_frame(app, waiters, "pagedown", 30)
        figures["key: home / end"] = await key_to_frame(app, waiters, "home", 5) + await key_to_frame(
            app, waiters, "end", 5
        )
        figures["key: left (jump / fold)"] = await key_to_frame(app, waiters, "left", 20)
        figures["key: ctrl+o (filter mode)"] = await key_to_frame(app, waiters, "ctrl+o", 10)
        figures["key: type a search letter"] = await key_to_frame(app, waiters, "1", 3) + await key_to_frame(
            app, waiters, "backspace", 3
        )
    return figures


async def measure_stock(session: SessionManager) -> dict[str, list[float]]:
    app = StockTree(session)
    async with app.run_test(size=SIZE) as pilot:
        waiters = install_frame_hook(app)
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        waiters.append(future)
        start = time.perf_counter()
        await app.show()
        opened = await asyncio.wait_for(future, 10) - start
        await pilot.pause()
        return {"stock Tree painted": [opened], "stock Tree key: down": await key_to_frame(app, waiters, "down", 50)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-stock", action="store_true", help="skip the stock Textual Tree comparison")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = write_session(Path(tmp), args.entries)
        start = time.perf_counter()
        session = SessionManager.open(path)
        parsed = time.perf_counter() - start
        print(
            f"{len(session.entries)} entries, {len(session.get_tree())} root(s); session parsed in {parsed * 1000:.0f} ms"
        )
        figures = asyncio.run(measure_navtui(session, args.repeat))
        if not args.no_stock:
            figures.update(asyncio.run(measure_stock(session)))
    print(f"\n{'measure':36} {'median':>10} {'p95':>10} {'max':>10}  target")
    targets = {"tree screen painted": "< 300 ms"}
    for name, values in figures.items():
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
        target = targets.get(name, "< 16 ms (one frame)" if name.startswith("key") else "")
        print(
            f"{name:36} {statistics.median(values) * 1000:8.1f} ms {p95 * 1000:7.1f} ms "
            f"{max(values) * 1000:7.1f} ms  {target}"
        )
    print("\nkey figures: from posting the key event to the painted frame it causes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
