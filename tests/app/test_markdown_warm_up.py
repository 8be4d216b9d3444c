"""The first reply's one-time Markdown costs are paid on a thread when a turn starts (widgets/markdown/warm.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from navtui.widgets.markdown import warm
from tests.app.conftest import main_screen, settle, wait_for
from tests.fakes import Text

CHECK = """
import json, sys
from navtui.widgets.markdown import warm
before = [m for m in ("markdown_it", "rich.markdown", "pygments.lexers.python") if m in sys.modules]
warm.start()
warm._thread.join()
loaded = set(sys.modules)
from rich.console import Console
from rich.style import Style
from navtui.widgets.markdown.document import MarkdownDocument
from navtui.widgets.markdown.render import palette_for
document = MarkdownDocument()
document.feed("A reply.\\n\\n```python\\nprint(1)\\n```\\n\\n| x |\\n|---|\\n| 1 |\\n")
document.close()
document.render(Console(width=60, force_terminal=True), 60, Style(), palette_for({}), None)
print(json.dumps({"before": before, "after_reply": sorted(set(sys.modules) - loaded), "lines": document.height}))
"""


def test_the_warm_up_loads_what_a_reply_would_load_and_only_then() -> None:
    out = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2]
    )
    result = json.loads(out.stdout)
    assert result["before"] == []  # importing the module loads nothing of Markdown
    assert result["after_reply"] == []  # the reply's paragraph, Python block and table import nothing more
    assert result["lines"] > 5


RACE = """
import json, threading
from pygments.lexer import RegexLexerMeta
from navtui.widgets.markdown import code, warm

changed = threading.Condition()
seen = []


def note(what):
    with changed:
        seen.append(what)
        changed.notify_all()


compile_tables = RegexLexerMeta.process_tokendef


def noted(cls, name, tokendefs=None):
    thread = threading.current_thread().name
    note([cls.__name__, thread])
    if cls.__name__ == "PythonLexer" and thread == "navtui-markdown-warm-up":
        with changed:  # the warm-up is held inside the compile until the loop's look-up is under way
            changed.wait_for(lambda: "released" in seen)
    return compile_tables(cls, name, tokendefs)


RegexLexerMeta.process_tokendef = noted
lock = code.LEXER_TABLES if hasattr(code, "LEXER_TABLES") else threading.Lock()


class Watched:
    def __enter__(self):
        note(["lock", threading.current_thread().name])
        lock.acquire()

    def __exit__(self, *exc):
        lock.release()


code.LEXER_TABLES = Watched()
warm.start()
with changed:
    changed.wait_for(lambda: ["PythonLexer", "navtui-markdown-warm-up"] in seen)
loop = threading.Thread(target=code._lexer, args=("python",), name="loop")
loop.start()
with changed:  # the loop's look-up waits for the lock, or compiles the tables beside the warm-up
    changed.wait_for(lambda: ["lock", "loop"] in seen or ["PythonLexer", "loop"] in seen)
note("released")
loop.join()
warm._thread.join()
print(json.dumps([what for what in seen if what[0] == "PythonLexer"]))
"""


def test_a_lexer_looked_up_on_the_loop_while_the_warm_up_compiles_its_tables_waits_for_them() -> None:
    # Pygments compiles a lexer's tables at its first instance without a lock: a flush that looked up Python's
    # lexer while the warm-up compiled it compiled the same tables again, 31-53 ms of the loop's CPU.
    out = subprocess.run(
        [sys.executable, "-c", RACE], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2]
    )
    assert json.loads(out.stdout) == [["PythonLexer", "navtui-markdown-warm-up"]]


async def test_a_turn_starts_the_warm_up_once(make_app, fake_server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warm, "_thread", None)
    fake_server.script(Text("one"))
    fake_server.script(Text("two"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        assert warm._thread is None  # not at start-up
        screen = main_screen(app)
        screen.submit("first")
        await wait_for(pilot, lambda: warm._thread is not None)
        first = warm._thread
        await settle(app, pilot)
        screen.submit("second")
        await settle(app, pilot)
        assert warm._thread is first
        assert first is not None
        first.join()


def test_the_warm_up_builds_the_parsers_a_long_paragraphs_first_safe_point_needs() -> None:
    # ~1 ms once a process, on the loop at a long paragraph's first safe point without it (widgets/markdown/paragraph.py)
    check = (
        "from navtui.widgets.markdown import paragraph, warm\n"
        "warm.warm_up()\n"
        "print(paragraph._block_parser.cache_info().currsize, paragraph._inline_parser.cache_info().currsize)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2]
    )
    assert out.stdout.split() == ["1", "1"]
