"""Export the leaf's path of a session as one self-contained HTML page or as Markdown.

HTML: themed (CSS variables from the dark/light palettes), assistant Markdown rendered with markdown-it
(raw HTML disabled, so everything a model or a tool wrote is escaped), code highlighted with Pygments,
thinking and every tool call (with its result) in a collapsible ``<details>``, images inlined.
Markdown: raw HTML outside code is escaped too (``markdown_safe``), so a previewer shows it as text.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from navtui.core.display import display_safe
from navtui.core.errors import NavtuiError
from navtui.core.fs import atomic_write_text
from navtui.core.messages import (
    AssistantMessage,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from navtui.session.blobs import resolve_blocks
from navtui.session.context import execution_text
from navtui.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    Entry,
    MessageEntry,
    ModelChangeEntry,
    RawEntry,
    ThinkingLevelChangeEntry,
    content_text,
    is_handover,
)
from navtui.session.manager import SessionManager
from navtui.session.markdown_safe import safe_markdown

_PALETTES = {
    "dark": {
        "bg": "#16181d", "panel": "#1d2129", "text": "#d7dae0", "muted": "#777d88", "accent": "#febc38",
        "border": "#3d424a", "user": "#221d1a", "custom": "#2a2530", "error": "#fc3a4b", "ok": "#89d281",
        "link": "#0088fa", "code": "#e5c1ff",
    },
    "light": {
        "bg": "#ffffff", "panel": "#f4f5f7", "text": "#1f2328", "muted": "#6e7781", "accent": "#9a6700",
        "border": "#d0d7de", "user": "#fdf6e3", "custom": "#f3effa", "error": "#cf222e", "ok": "#1a7f37",
        "link": "#0969da", "code": "#8250df",
    },
}  # fmt: skip
_PYGMENTS_STYLE = {"dark": "github-dark", "light": "default"}

_CSS = """
body{margin:0;background:var(--bg);color:var(--text);font:15px/1.55 system-ui,-apple-system,Segoe UI,sans-serif}
main{max-width:920px;margin:0 auto;padding:24px 16px 64px}
header{border-bottom:1px solid var(--border);margin-bottom:20px}
header h1{font-size:22px;margin:0 0 6px;color:var(--accent)}
header p{margin:0 0 12px;color:var(--muted);font-size:13px}
.entry{margin:14px 0;padding:10px 14px;border-radius:6px;background:var(--panel);overflow-wrap:anywhere}
.user{background:var(--user);border-left:3px solid var(--accent)}
.custom{background:var(--custom)}
.role{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.05em;margin-bottom:4px}
.label{display:inline-block;margin-left:8px;padding:0 6px;border-radius:4px;background:var(--accent);color:var(--bg)}
.plain{white-space:pre-wrap;margin:0;font:inherit}
.divider{margin:22px 0;color:var(--muted);font-size:13px;border-top:1px dashed var(--border);padding-top:8px}
.state{color:var(--muted);font-size:12px;margin:6px 0}
details{margin:8px 0;border:1px solid var(--border);border-radius:6px;padding:4px 10px}
details>summary{cursor:pointer;color:var(--muted)}
details.tool>summary{color:var(--text)}
details.tool.error{border-color:var(--error)}
.status-ok{color:var(--ok)} .status-error{color:var(--error)}
pre{overflow-x:auto;padding:8px 10px;border-radius:4px;background:var(--bg);font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;color:var(--code)}
pre code{color:inherit}
a{color:var(--link)}
img{max-width:100%;border-radius:4px}
table{border-collapse:collapse} td,th{border:1px solid var(--border);padding:2px 8px}
"""


@dataclass
class _Item:
    """One thing to show: an entry, with the tool results of an assistant message attached to it."""

    entry: Entry
    results: dict[str, ToolResultMessage]
    label: str | None


def _items(session: SessionManager, leaf_id: str | None) -> Iterator[_Item]:
    path = session.display_items(leaf_id)
    results: dict[str, ToolResultMessage] = {}
    for entry in path:
        if isinstance(entry, MessageEntry) and isinstance(entry.message, ToolResultMessage):
            results.setdefault(entry.message.tool_call_id, entry.message)
    shown: set[str] = set()
    for entry in path:
        if isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            mine = {c.id: results[c.id] for c in entry.message.tool_calls if c.id in results}
            shown.update(mine)
            yield _Item(entry, mine, session.label_of(entry.id))
        elif isinstance(entry, MessageEntry) and isinstance(entry.message, ToolResultMessage):
            if entry.message.tool_call_id not in shown:
                yield _Item(entry, {}, session.label_of(entry.id))
        else:
            yield _Item(entry, {}, session.label_of(entry.id) if entry.id else None)


def _title(session: SessionManager) -> str:
    return session.title or "Session"


# ------------------------------------------------------------------------------------------- where
def export_target(given: str | Path | None, cwd: Path, name: str) -> Path:
    """Where an export goes: ``given`` (relative to ``cwd``, ``~`` expanded; a folder gets ``name`` inside), or,
    when nothing is given, ``name`` in ``~/.navtui/exports/``, created on first use. Writing into the working
    tree only when asked keeps ``git status`` clean."""
    if not given:
        from navtui.config.paths import exports_dir

        folder = exports_dir()
        folder.mkdir(parents=True, exist_ok=True)
        return folder / name
    path = Path(given).expanduser()
    path = path if path.is_absolute() else cwd / path
    return path / name if path.is_dir() or str(given).endswith(("/", "\\")) else path


_HTML_HEAD = (
    b'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
    b'<meta name="viewport" content="width=device-width,initial-scale=1">'
)


def check_replaceable(path: Path, hint: str) -> None:
    """Raise ``NavtuiError`` when ``path`` is a file an export may not replace: anything but an earlier export
    (a mistyped ``-o notes.md`` or ``/export main.py`` wrote the page over the user's file, ``-o`` naming the
    session file itself over the session)."""
    import os
    import stat

    try:  # never waiting for a writer: a named pipe at the path held the export (and /export's thread) for good
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    except OSError:
        return  # not readable: the write says why
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NavtuiError(f"{path} exists and is not a regular file; nothing was written", hint=hint)
        head = os.read(fd, 4096)
    finally:
        os.close(fd)
    if head.startswith(_HTML_HEAD) or (head.startswith(b"# ") and b"\n- Session: `" in head):
        return  # an earlier export (HTML, Markdown): written again
    raise NavtuiError(f"{path} exists and is not an earlier export; nothing was written", hint=hint)


def export_format(path: Path) -> str:
    """``md`` for a Markdown file name, else ``html``."""
    return "md" if path.suffix.lower() in (".md", ".markdown") else "html"


# ---------------------------------------------------------------------------------------------- HTML
def export_html(session: SessionManager, path: Path, *, leaf_id: str | None = None, theme: str = "dark") -> Path:
    """Write the page for ``leaf_id``'s path (default: the leaf) to ``path``."""
    atomic_write_text(Path(path), render_html(session, leaf_id=leaf_id, theme=theme))
    return Path(path)


def render_html(session: SessionManager, *, leaf_id: str | None = None, theme: str = "dark") -> str:
    from pygments.formatters import HtmlFormatter

    palette = _PALETTES.get(theme, _PALETTES["dark"])
    variables = ";".join(f"--{name}:{value}" for name, value in palette.items())
    pygments_css = HtmlFormatter(style=_PYGMENTS_STYLE.get(theme, "github-dark")).get_style_defs(".highlight")
    renderer = _HtmlRenderer()
    body = "\n".join(renderer.item(item) for item in _items(session, leaf_id))
    context = session.build_context(leaf_id)
    meta = " · ".join(
        html.escape(part)
        for part in (
            f"session {session.session_id}",
            str(session.cwd),
            _when(session.header.timestamp),
            _model_name(context.provider, context.model),
        )
        if part
    )
    title = html.escape(_title(session))
    return display_safe(  # no raw control character in the page (a terminal may cat it); a page has no CR of its own
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{title}</title><style>:root{{{variables}}}{_CSS}{pygments_css}</style></head>\n"
        f"<body><main><header><h1>{title}</h1><p>{meta}</p></header>\n{body}\n</main></body></html>\n"
    )


class _HtmlRenderer:
    def __init__(self) -> None:
        from markdown_it import MarkdownIt

        self._markdown = MarkdownIt("commonmark", {"html": False, "highlight": self._highlight})
        self._markdown.enable(["table", "strikethrough"])

    def item(self, item: _Item) -> str:
        entry = item.entry
        badge = f'<span class="label">{html.escape(item.label)}</span>' if item.label else ""
        if isinstance(entry, MessageEntry):
            return self._message(entry.message, item.results, badge)
        if isinstance(entry, CompactionEntry):
            heading = f"Context compacted ({entry.tokens_before:,} tokens before)"
            return self._divider(heading, self.markdown(entry.summary))
        if is_handover(entry):
            return self._divider("Handover: the model continued from these notes", self.markdown(entry.text))  # type: ignore[union-attr]
        if isinstance(entry, BranchSummaryEntry):
            return self._divider("Returned from a branch", self.markdown(entry.summary))
        if isinstance(entry, CustomMessageEntry):
            if not entry.display:
                return ""
            role = html.escape(entry.custom_type.replace("_", " "))
            return f'<section class="entry custom"><div class="role">{role}{badge}</div>{self.blocks(entry.content)}</section>'
        if isinstance(entry, ModelChangeEntry):
            provider, model = entry.resolved
            return f'<div class="state">Model: {html.escape(_model_name(provider, model))}</div>'
        if isinstance(entry, ThinkingLevelChangeEntry):
            return f'<div class="state">Thinking level: {html.escape(entry.thinking_level or "off")}</div>'
        if isinstance(entry, RawEntry) and isinstance(entry.raw.get("message"), dict):
            message = entry.raw["message"]
            text = (
                execution_text(message)
                if message.get("role") in ("bashExecution", "pythonExecution")
                else str(message.get("content", ""))
            )
            role = html.escape(str(message.get("role", "")))
            return (
                f'<section class="entry custom"><div class="role">{role}</div><pre>{html.escape(text)}</pre></section>'
            )
        return ""

    def _message(self, message: Any, results: dict[str, ToolResultMessage], badge: str) -> str:
        if isinstance(message, UserMessage):
            return f'<section class="entry user"><div class="role">You{badge}</div>{self.blocks(message.content)}</section>'
        if isinstance(message, ToolResultMessage):
            return f'<section class="entry">{self._result(message)}</section>'
        parts = []
        for block in message.content:
            if isinstance(block, TextBlock) and block.text.strip():
                parts.append(self.markdown(block.text))
            elif isinstance(block, ToolCall):
                parts.append(self._tool(block, results.get(block.id)))
            elif getattr(block, "thinking", "").strip():
                parts.append(
                    f'<details class="thinking"><summary>Thinking</summary><pre class="plain">{html.escape(block.thinking)}</pre></details>'
                )
        if message.stop_reason in ("aborted", "error"):
            reason = message.error_message or ("interrupted" if message.stop_reason == "aborted" else "failed")
            parts.append(f'<div class="state status-error">{html.escape(reason)}</div>')
        model = html.escape(message.model or "assistant")
        return f'<section class="entry"><div class="role">{model}{badge}</div>{"".join(parts)}</section>'

    def _tool(self, call: ToolCall, result: ToolResultMessage | None) -> str:
        arguments = json.dumps(call.arguments, indent=2, ensure_ascii=False)
        status = '<span class="status-ok">✓</span>' if result and not result.is_error else ""
        if result is not None and result.is_error:
            status = '<span class="status-error">✗</span>'
        summary = (
            f"{status} <strong>{html.escape(call.name)}</strong> <code>{html.escape(_one_line(call.arguments))}</code>"
        )
        inner = self._highlight(arguments, "json", "")
        if result is not None:
            inner += self._result(result, nested=True)
        css = "tool error" if result is not None and result.is_error else "tool"
        return f'<details class="{css}"><summary>{summary}</summary>{inner}</details>'

    def _result(self, result: ToolResultMessage, *, nested: bool = False) -> str:
        heading = "" if nested else f'<div class="role">{html.escape(result.tool_name)} result</div>'
        diff = (result.details or {}).get("diff")
        body = self._highlight(diff, "diff", "") if isinstance(diff, str) and diff else ""
        return heading + body + self.blocks(result.content, preformatted=True)

    def blocks(self, content: str | list[Any], *, preformatted: bool = False) -> str:
        if isinstance(content, str):
            return f'<pre class="plain">{html.escape(content)}</pre>'
        out = []
        for block in resolve_blocks(content):
            if isinstance(block, TextBlock):
                css = "" if preformatted else ' class="plain"'
                out.append(f"<pre{css}>{html.escape(block.text)}</pre>")
            elif isinstance(block, ImageBlock) and block.mime_type.startswith("image/"):
                source = html.escape(f"data:{block.mime_type};base64,{block.data}", quote=True)
                out.append(f'<img alt="image" src="{source}">')
        return "".join(out)

    def markdown(self, text: str) -> str:
        return self._markdown.render(text)

    @staticmethod
    def _divider(heading: str, body: str) -> str:
        return f'<div class="divider"><details><summary>{html.escape(heading)}</summary>{body}</details></div>'

    @staticmethod
    def _highlight(code: str, language: str, _attrs: Any) -> str:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import get_lexer_by_name
        from pygments.util import ClassNotFound

        try:
            lexer = get_lexer_by_name(language or "text")
        except ClassNotFound:
            lexer = get_lexer_by_name("text")
        # Starting with "<pre" tells markdown-it to use the block as it is (no second <pre><code> around it).
        inner = highlight(code, lexer, HtmlFormatter(nowrap=True))
        return f'<pre class="highlight"><code>{inner}</code></pre>\n'


# ------------------------------------------------------------------------------------------ Markdown
def export_markdown(session: SessionManager, path: Path, *, leaf_id: str | None = None) -> Path:
    atomic_write_text(Path(path), render_markdown(session, leaf_id=leaf_id))
    return Path(path)


def render_markdown(session: SessionManager, *, leaf_id: str | None = None) -> str:
    context = session.build_context(leaf_id)
    lines = [f"# {_title(session)}", "", f"- Session: `{session.session_id}`", f"- Directory: `{session.cwd}`"]
    lines.append(f"- Started: {_when(session.header.timestamp)}")
    if context.model:
        lines.append(f"- Model: {_model_name(context.provider, context.model)}")
    for item in _items(session, leaf_id):
        section = _markdown_item(item)
        if section:
            lines += ["", section]
    # Raw HTML a model wrote must not render where the file is previewed (everything generated here is fenced).
    return safe_markdown("\n".join(lines) + "\n")


def _markdown_item(item: _Item) -> str:
    entry = item.entry
    label = f" [{item.label}]" if item.label else ""
    if isinstance(entry, MessageEntry):
        message = entry.message
        if isinstance(message, UserMessage):
            return f"## User{label}\n\n{message.text}"
        if isinstance(message, ToolResultMessage):
            return f"### Result of `{message.tool_name}`\n\n{_fence(message.text)}"
        parts = [f"## Assistant ({message.model or 'model'}){label}"]
        for block in message.content:
            if isinstance(block, TextBlock) and block.text.strip():
                parts.append(block.text)
            elif isinstance(block, ToolCall):
                parts.append(f"**Tool call** `{block.name}`\n\n{_fence(json.dumps(block.arguments, indent=2), 'json')}")
                result = item.results.get(block.id)
                if result is not None:
                    state = "error" if result.is_error else "result"
                    parts.append(f"**{state.capitalize()}**\n\n{_fence(result.text)}")
            elif isinstance(block, ThinkingBlock) and block.thinking.strip():
                parts.append("> " + block.thinking.replace("\n", "\n> "))
        if message.stop_reason in ("aborted", "error"):
            parts.append(f"_{message.error_message or message.stop_reason}_")
        return "\n\n".join(parts)
    if isinstance(entry, CompactionEntry):
        return f"---\n\n_Context compacted ({entry.tokens_before:,} tokens before):_\n\n{entry.summary}\n\n---"
    if is_handover(entry):
        return f"---\n\n_Handover notes:_\n\n{entry.text}\n\n---"  # type: ignore[union-attr]
    if isinstance(entry, BranchSummaryEntry):
        return f"---\n\n_Returned from a branch:_\n\n{entry.summary}\n\n---"
    if isinstance(entry, CustomMessageEntry) and entry.display:
        return f"### {entry.custom_type}{label}\n\n{content_text(entry.content)}"
    if isinstance(entry, RawEntry) and isinstance(entry.raw.get("message"), dict):
        message = entry.raw["message"]
        if message.get("role") in ("bashExecution", "pythonExecution"):
            return f"### Shell\n\n{execution_text(message)}"
    return ""


def _fence(text: str, language: str = "") -> str:
    """A code fence longer than any backtick run inside ``text``."""
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def _one_line(arguments: dict[str, Any], limit: int = 100) -> str:
    text = " ".join(f"{key}={value}" for key, value in arguments.items())
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _model_name(provider: str | None, model: str | None) -> str:
    if not model:
        return ""
    return f"{provider}/{model}" if provider else model


def _when(timestamp: str) -> str:
    try:
        return datetime.fromisoformat(timestamp).strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return timestamp
