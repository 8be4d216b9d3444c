"""A stand-in for navtui's main screen, drawn only with ``$nav-*`` variables: used to look at each theme.

It shows the surfaces a theme must make readable (user message, thinking, markdown with code, tool cards with
a diff and an error, status line) and is how the snapshot tests check that every theme looks deliberate.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.highlight import highlight
from textual.widgets import Markdown, Static
from textual.widgets._markdown import MarkdownFence

from navtui.themes.live import register_themes
from navtui.themes.loader import ThemeRegistry
from navtui.themes.syntax import NavHighlightTheme
from navtui.themes.textual_theme import nav_variable_defaults

ASSISTANT = """\
## Plan
Add a `--verbose` flag and pass it to the [logger](https://docs.python.org/3/library/logging.html):

- parse it in `main()`
- keep the default quiet

> Existing callers are unaffected.

```python
def main(argv: list[str] | None = None) -> int:
    # Parse the flags first
    args = parser.parse_args(argv)
    level = logging.DEBUG if args.verbose else 30
    return run(args, level=level, retries=3)
```
"""

DIFF = """\
[$nav-muted]@@ -12,4 +12,5 @@[/]
[$nav-diff-context]     parser = argparse.ArgumentParser()[/]
[$nav-diff-removed]-    parser.add_argument("--quiet")[/]
[$nav-diff-added]+    parser.add_argument("--quiet", action="store_true")[/]
[$nav-diff-added]+    parser.add_argument("--verbose", action="store_true")[/]
[$nav-diff-context]     return parser[/]"""

STATUS = (
    "[$nav-status-model]qwen3:14b[/] [$nav-status-sep]│[/] [$nav-status-path]~/src/navtui[/] "
    "[$nav-status-git-clean]main ✓[/] [$nav-status-sep]│[/] [$nav-status-context]ctx 41%[/] "
    "[$nav-status-spend]12.4k tok[/] [$nav-status-cost]$0.00[/] [$nav-status-sep]│[/] "
    "[$nav-status-staged]+2[/] [$nav-status-dirty]~1[/] [$nav-status-untracked]?3[/] "
    "[$nav-status-subagents]++[/]"
)


class ThemedFence(MarkdownFence):
    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        return highlight(code, language=language or None, theme=NavHighlightTheme)


class ThemedMarkdown(Markdown):
    BLOCKS = {**Markdown.BLOCKS, "fence": ThemedFence, "code_block": ThemedFence}


class ThemePreviewApp(App[None]):
    CSS = """
    #transcript { padding: 0 1; scrollbar-size-vertical: 0; color: $nav-text; }
    .user { background: $nav-user-message-bg; color: $nav-user-message-text; padding: 0 1;
            border-left: outer $nav-border-accent; margin-bottom: 1; }
    .thinking { color: $nav-thinking-text; text-style: italic; border-left: outer $nav-thinking-medium;
                padding: 0 1; margin-bottom: 1; }
    ThemedMarkdown { padding: 0 1; margin: 0; }
    ThemedMarkdown MarkdownH2 { color: $nav-md-heading; }
    ThemedMarkdown MarkdownBlockQuote { color: $nav-md-quote; border-left: outer $nav-md-quote-border;
                                        background: transparent; }
    ThemedMarkdown MarkdownBulletList { color: $nav-text; }
    ThemedMarkdown MarkdownBlock > .code_inline { color: $nav-md-code; background: $nav-code-bg; }
    ThemedMarkdown ThemedFence { background: $nav-code-bg; color: $nav-md-code-block; margin: 0 0 1 0;
                                 border-left: outer $nav-md-code-block-border; }
    ThemedMarkdown ThemedFence > Label { padding: 0 1; }
    .card { height: auto; padding: 0 1; margin-bottom: 1; border-left: outer $nav-border; }
    .card .title { color: $nav-tool-title; text-style: bold; }
    .card .output { color: $nav-tool-output; }
    .card.-ok { background: $nav-tool-success-bg; border-left: outer $nav-success; }
    .card.-error { background: $nav-tool-error-bg; border-left: outer $nav-error; }
    .card.-pending { background: $nav-tool-pending-bg; border-left: outer $nav-border-muted; }
    #status { dock: bottom; height: 1; background: $nav-status-bg; padding: 0 1; }
    """

    def __init__(self, theme_name: str = "dark") -> None:
        super().__init__()
        self.registry = ThemeRegistry()
        self.start_theme = theme_name

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return nav_variable_defaults()

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="transcript"):
            yield Static("Add a --verbose flag to the CLI and keep quiet as the default", classes="user", markup=False)
            yield Static("The CLI builds its parser in make_parser(); a store_true flag is enough.", classes="thinking")
            yield ThemedMarkdown(ASSISTANT)
            with Vertical(classes="card -ok"):
                yield Static(
                    Content.from_markup("[$nav-success]✓[/] edit [$nav-md-link]navtui/cli.py[/]"), classes="title"
                )
                yield Static(Content.from_markup(DIFF))
            with Vertical(classes="card -error"):
                yield Static(Content.from_markup("[$nav-error]✗[/] shell pytest -q tests/test_cli.py"), classes="title")
                yield Static(
                    "FAILED tests/test_cli.py::test_verbose - AssertionError\n1 failed, 41 passed in 0.84s",
                    classes="output",
                    markup=False,
                )
            with Vertical(classes="card -pending"):
                yield Static(Content.from_markup("[$nav-warning]⠋[/] read README.md"), classes="title")
        yield Static(Content.from_markup(STATUS), id="status")

    def on_mount(self) -> None:
        register_themes(self, self.registry)
        self.theme = self.start_theme


if __name__ == "__main__":
    import sys

    ThemePreviewApp(sys.argv[1] if len(sys.argv) > 1 else "dark").run()
