"""Pay the first Markdown render's one-time costs before a reply streams.

The first paragraph, code block and table a process renders import and set up markdown-it, Rich's Markdown and
a Pygments lexer: ~20 ms for the first paragraph, ~50 ms for the first Python block, ~9 ms for the first shell
block, measured in a fresh process. Paid during a reply, each is a stall of the event loop that a key's echo
waits behind. ``start`` renders a small document on a thread of its own when the first turn starts, while the
request is on its way: the imports and caches are then there when the reply's blocks come. The idle app never
imports any of it (start-up and idle memory stay as they were).
"""

from __future__ import annotations

import io
import threading

_SAMPLE = """Some *text* with `code`, **bold** and a [link](https://example.org).

- a list

```python
def f(x: int) -> str:
    return f"{x}"
```

```sh
ls -la | grep x
```

| a | b |
|---|---|
| 1 | 2 |
"""

_LEXERS = ("python", "sh")  # the sample's code blocks' languages

_thread: threading.Thread | None = None


def warm_up() -> None:
    """Render the sample once, to a console of its own (nothing is shown)."""
    from rich.console import Console
    from rich.style import Style

    from navtui.widgets.markdown.document import MarkdownDocument
    from navtui.widgets.markdown.render import palette_for

    console = Console(file=io.StringIO(), width=80, color_system="truecolor", force_terminal=True)
    # The first paragraph first (a reply's first flush needs it at once; an import the loop meets meanwhile waits
    # for this thread's, it is not done twice), then the lexers' tables, which Pygments compiles without a lock: the
    # loop's look-up waits on ``LEXER_TABLES`` for them (a reply's first code block comes later)
    first = MarkdownDocument()
    first.feed(_SAMPLE.split("\n\n", 1)[0])
    first.close()
    first.render(console, 80, Style(), palette_for({}), None)
    from pygments.lexers import get_lexer_by_name

    from navtui.widgets.markdown.code import LEXER_TABLES

    with LEXER_TABLES:
        for name in _LEXERS:
            get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=4)
    document = MarkdownDocument()
    document.feed(_SAMPLE)
    document.close()
    document.render(console, 80, Style(), palette_for({}), None)
    from navtui.widgets.markdown import paragraph

    paragraph.warm_up()  # the parsers a long paragraph's first safe point needs


def _run() -> None:
    try:
        warm_up()
    except Exception:  # a warm-up only saves time: whatever fails here fails again, visibly, where it is used
        pass


def start() -> None:
    """Warm up on a background thread, once per process."""
    global _thread
    if _thread is None:
        _thread = threading.Thread(target=_run, name="navtui-markdown-warm-up", daemon=True)
        _thread.start()
