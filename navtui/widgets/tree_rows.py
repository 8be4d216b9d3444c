"""The session tree as display rows: flattening, folding, filter modes, search and one-line summaries.

Plain data, no Textual: ``TreeModel`` turns ``SessionManager.get_tree()`` into a flat depth-first list once
(O(n), iterative so a 5,000-entry chain is fine) and answers ``visible()`` for the current fold / filter /
search state; the tree widget draws only the rows on screen.

Layout (as pi's tree selector): a chain of single children stays at one indent; where an entry has several
children each child starts a *segment* drawn with ``├─``/``└─`` one level deeper, ``│`` gutters joining the
siblings. Several roots are drawn as the children of an invisible branching root.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from navtui.core.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from navtui.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    Entry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    RawEntry,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
)
from navtui.session.kinds import entry_kind
from navtui.session.tree import TreeNode

__all__ = ["FILTER_MODES", "RowText", "TreeModel", "TreeRow", "describe", "entry_kind", "first_line"]

FilterMode = Literal["default", "no-tools", "user-only", "labeled-only", "all"]
FILTER_MODES: tuple[FilterMode, ...] = ("default", "no-tools", "user-only", "labeled-only", "all")
FILTER_TITLES: dict[FilterMode, str] = {
    "default": "default",
    "no-tools": "no tools",
    "user-only": "user only",
    "labeled-only": "labeled only",
    "all": "all",
}

# Row kinds. "settings" kinds are bookkeeping the default filter hides.
SETTINGS_KINDS = frozenset({"label", "custom", "model", "thinking", "info"})
TOOL_KINDS = frozenset({"tool", "tool-error"})

# One-cell glyphs (no emoji: their width differs between terminals).
ICONS: dict[str, str] = {
    "user": "❯",
    "assistant": "●",
    "assistant-tools": "●",
    "assistant-error": "●",
    "tool": "◇",
    "tool-error": "✗",
    "summary": "↩",
    "compaction": "≡",
    "custom-message": "◆",
    "custom": "·",
    "model": "⚑",
    "thinking": "∴",
    "label": "#",
    "info": "✎",
    "other": "·",
}
TEXT_CHARS = 300  # longest summary text kept per row (the widget truncates to its width)
SEARCH_CHARS = 2000  # how much of an entry's text the search looks at


@dataclass(eq=False, slots=True)
class TreeRow:
    """One entry in the flattened tree. ``index``..``end`` is its subtree in ``TreeModel.rows``. The entry is
    parsed when ``entry`` is read (the rows drawn, a search): building the rows reads only ids and kinds."""

    node: TreeNode
    index: int
    parent: int  # the parent row's index, -1 for a root
    depth: int  # indent levels before the row's text
    connector: str  # "├" or "└" when the row starts a segment under a branch point, else ""
    gutters: tuple[int, ...]  # levels drawn with "│"
    kind: str
    active: bool  # on the root-to-leaf path
    leaf: bool
    label: str | None = None
    end: int = 0
    segment_start: bool = False
    search: str | None = None  # lowercase searchable text, built on first search

    @property
    def entry(self) -> Entry:
        return self.node.entry

    @property
    def id(self) -> str:
        return self.node.id or ""

    @property
    def has_children(self) -> bool:
        return self.end > self.index + 1


@dataclass(slots=True)
class RowText:
    """What a row says: an icon, one line of text, and the style key the widget colours it with."""

    icon: str
    text: str
    style: str  # user | assistant | tool | error | summary | custom | meta
    time: str = ""


class TreeModel:
    """The rows of one session tree plus fold, filter and search state."""

    def __init__(self, roots: list[TreeNode], leaf_id: str | None, *, active_ids: set[str] | None = None) -> None:
        self.leaf_id = leaf_id
        self.rows: list[TreeRow] = []
        self.by_id: dict[str, int] = {}
        self.calls: dict[str, ToolCall] = {}  # tool calls by id, read from assistant rows as results need them
        self._all_calls = False  # every assistant row's calls are in ``calls``
        self.folded: set[int] = set()
        self.filter_mode: FilterMode = "default"
        self.query = ""
        self.shown_leaf = -1  # the row marked "← active": the leaf, or its nearest visible ancestor
        self._connectors: dict[int, str] = {}  # shown rows drawn with another connector than their own
        self._gutters: list[tuple[int, ...]] | None = None  # every row's "│" levels for the shown rows
        self._active = active_ids if active_ids is not None else _path_ids(roots, leaf_id)
        self._flatten(roots)

    # ------------------------------------------------------------------ building
    def _flatten(self, roots: list[TreeNode]) -> None:
        multiple_roots = len(roots) > 1
        # Stack items: node, parent row, depth, connector, gutters.
        stack: list[tuple[TreeNode, int, int, str, tuple[int, ...]]] = []
        for position in range(len(roots) - 1, -1, -1):
            if multiple_roots:
                last = position == len(roots) - 1
                stack.append((roots[position], -1, 1, "└" if last else "├", () if last else (0,)))
            else:
                stack.append((roots[position], -1, 0, "", ()))
        rows, by_id, active = self.rows, self.by_id, self._active
        while stack:
            node, parent, depth, connector, gutters = stack.pop()
            index = len(rows)
            entry_id = node.id or ""
            row = TreeRow(
                node=node,
                index=index,
                parent=parent,
                depth=depth,
                connector=connector,
                gutters=gutters,
                kind=node.kind,
                active=entry_id in active,
                leaf=entry_id == self.leaf_id and bool(entry_id),
                label=node.label,
                segment_start=bool(connector) or parent == -1,
            )
            rows.append(row)
            if entry_id:
                by_id[entry_id] = index
            children = node.children
            if len(children) == 1:
                stack.append((children[0], index, depth, "", gutters))
            elif children:
                # A branch point: each child starts a segment one level deeper. Siblings below keep a gutter.
                last_child = len(children) - 1
                for position in range(last_child, -1, -1):
                    child_gutters = gutters + (depth,) if position != last_child else gutters
                    stack.append(
                        (children[position], index, depth + 1, "└" if position == last_child else "├", child_gutters)
                    )
        # Subtree ends, children before parents: a subtree is contiguous in pre-order.
        for row in reversed(rows):
            if row.end == 0:
                row.end = row.index + 1
            if row.parent >= 0:
                parent_row = rows[row.parent]
                parent_row.end = max(parent_row.end, row.end)

    # ------------------------------------------------------------------ queries
    def row(self, entry_id: str) -> TreeRow | None:
        index = self.by_id.get(entry_id)
        return self.rows[index] if index is not None else None

    def visible(self) -> list[TreeRow]:
        """The rows to show, in order, for the current folds, filter mode and search."""
        tokens = self.query.lower().split()
        rows, folded, mode = self.rows, self.folded, self.filter_mode
        out: list[TreeRow] = []
        index, count = 0, len(rows)
        while index < count:
            row = rows[index]
            if tokens:  # a search looks inside folded branches too
                if passes_filter(row, mode) and all(token in self.search_text(row) for token in tokens):
                    out.append(row)
                index += 1
            elif index in folded:  # a folded row stays visible: it holds what is hidden
                out.append(row)
                index = row.end
            else:
                if passes_filter(row, mode):
                    out.append(row)
                index += 1
        self.shown_leaf = self._shown_leaf({row.index for row in out}, searching=bool(tokens))
        if tokens:
            self._connectors, self._gutters = {}, None
        else:
            self._connectors, self._gutters = self._shown_connectors(out)
        return out

    def connector_of(self, row: TreeRow) -> str:
        """The ``├``/``└`` drawn before a shown row: its own, or that of the hidden entry its segment starts with
        (a checkpoint, hidden by the default filter, that starts the branch an undo went on from); ``└`` when
        every later sibling is hidden."""
        return self._connectors.get(row.index, row.connector)

    def gutters_of(self, row: TreeRow) -> tuple[int, ...]:
        """The levels drawn with ``│`` before a shown row: those whose later siblings show a row."""
        return row.gutters if self._gutters is None else self._gutters[row.index]

    def _shown_connectors(self, shown: list[TreeRow]) -> tuple[dict[int, str], list[tuple[int, ...]]]:
        """The connectors and gutters of what is shown, as if the hidden rows were not there.

        A segment whose first rows are hidden: its first shown row takes the connector. Each shown row looks up
        its chain through hidden rows only, so the rows are walked once at most. A segment whose later siblings
        show nothing (a checkpoint or a model change recorded after going back in the tree) is the last one:
        ``└``, and no gutter runs down to its hidden siblings. One pass over the rows in order (O(n)).
        """
        rows, visible = self.rows, {row.index for row in shown}
        positions = [row.index for row in shown]  # in order

        def continues(start: TreeRow) -> bool:  # a later sibling of the segment ``start`` begins shows a row
            end = rows[start.parent].end if start.parent >= 0 else len(rows)
            at = bisect.bisect_left(positions, start.end)
            return at < len(positions) and positions[at] < end

        connectors: dict[int, str] = {}
        for row in shown:
            start: TreeRow | None = row if row.connector else None
            up = row.parent
            while start is None and up >= 0 and up not in visible and rows[up].depth == row.depth:
                start = rows[up] if rows[up].connector else None
                up = rows[up].parent
            if start is None:
                continue
            connector = "├" if start.connector == "├" and continues(start) else "└"
            if connector != row.connector:
                connectors[row.index] = connector
        gutters: list[tuple[int, ...]] = []
        for row in rows:  # pre-order: a parent's gutters are known before its children's
            above = gutters[row.parent] if row.parent >= 0 else ()
            if row.connector == "├" and continues(row):
                above = above + (row.depth - 1,)
            gutters.append(above)
        return connectors, gutters

    def _shown_leaf(self, shown: set[int], *, searching: bool) -> int:
        index = self.by_id.get(self.leaf_id or "", -1)
        if searching:  # a search result is not "where you are": mark the leaf only when it matched
            return index if index in shown else -1
        while index >= 0 and index not in shown:
            index = self.rows[index].parent
        return index

    def foldable(self, row: TreeRow) -> bool:
        return row.segment_start and row.has_children

    def is_folded(self, row: TreeRow) -> bool:
        return row.index in self.folded

    def fold(self, row: TreeRow) -> bool:
        if not self.foldable(row) or row.index in self.folded:
            return False
        self.folded.add(row.index)
        return True

    def unfold(self, row: TreeRow) -> bool:
        if row.index not in self.folded:
            return False
        self.folded.discard(row.index)
        return True

    def unfold_to(self, entry_id: str) -> None:
        """Unfold every folded ancestor of ``entry_id`` so its row can be shown."""
        row = self.row(entry_id)
        while row is not None and row.parent >= 0:
            row = self.rows[row.parent]
            self.folded.discard(row.index)

    def cycle_filter(self, step: int = 1) -> FilterMode:
        position = FILTER_MODES.index(self.filter_mode)
        self.filter_mode = FILTER_MODES[(position + step) % len(FILTER_MODES)]
        return self.filter_mode

    def set_label(self, entry_id: str, label: str | None) -> None:
        row = self.row(entry_id)
        if row is not None:
            row.label = label or None
            row.search = None

    def search_text(self, row: TreeRow) -> str:
        if row.search is None:
            self._read_all_calls()  # a search reads every row anyway
            described = describe(row.entry, self.calls, limit=SEARCH_CHARS)
            parts = [row.label or "", row.kind, described.text]
            row.search = " ".join(parts).lower()
        return row.search

    def describe(self, row: TreeRow) -> RowText:
        entry = row.entry
        if isinstance(entry, MessageEntry) and isinstance(entry.message, ToolResultMessage):
            self._find_call(row, entry.message.tool_call_id)
        return describe(entry, self.calls)

    # ------------------------------------------------------------------ tool calls, read as needed
    def _find_call(self, row: TreeRow, call_id: str) -> None:
        """Put the call a result row answers into ``calls``: from the assistant rows above it (its own turn),
        else from every row."""
        if call_id in self.calls or self._all_calls:
            return
        parent = row.parent
        while parent >= 0:
            above = self.rows[parent]
            if above.kind.startswith("assistant") and self._add_calls(above, nearest=True) and call_id in self.calls:
                return
            parent = above.parent
        self._read_all_calls()

    def _read_all_calls(self) -> None:
        if not self._all_calls:
            self._all_calls = True
            for row in self.rows:
                if row.kind.startswith("assistant"):
                    self._add_calls(row)

    def _add_calls(self, row: TreeRow, *, nearest: bool = False) -> bool:
        """``nearest``: walking up from a result, a call id already found below keeps its call; reading every
        row, the last row with an id gives its call (the tree's order)."""
        entry = row.entry
        if not isinstance(entry, MessageEntry) or not isinstance(entry.message, AssistantMessage):
            return False
        for call in entry.message.tool_calls:
            if nearest:
                self.calls.setdefault(call.id, call)
            else:
                self.calls[call.id] = call
        return True


def passes_filter(row: TreeRow, mode: FilterMode) -> bool:
    kind = row.kind
    if mode == "all":
        return True
    if kind == "assistant-tools" and not row.leaf:
        return False  # its tool calls show on their result rows
    if mode == "default":
        return kind not in SETTINGS_KINDS
    if mode == "no-tools":
        return kind not in SETTINGS_KINDS and kind not in TOOL_KINDS
    if mode == "user-only":
        return kind == "user"
    return row.label is not None  # labeled-only


def _path_ids(roots: list[TreeNode], leaf_id: str | None) -> set[str]:
    """Ids on the root-to-leaf path, found by walking the forest (callers with a manager pass them in)."""
    if leaf_id is None:
        return set()
    parents: dict[str, str | None] = {}
    stack: list[tuple[TreeNode, str | None]] = [(root, None) for root in roots]
    while stack:
        node, parent = stack.pop()
        node_id = node.id
        if node_id:
            parents[node_id] = parent
        stack.extend((child, node_id) for child in node.children)
    out: set[str] = set()
    current: str | None = leaf_id
    while current is not None and current not in out and current in parents:
        out.add(current)
        current = parents[current]
    return out


# ---------------------------------------------------------------------- one-line summaries
def describe(entry: Entry, calls: dict[str, ToolCall], *, limit: int = TEXT_CHARS) -> RowText:
    """The icon, text and style of one entry's row (text is one line, at most ``limit`` characters)."""
    kind = entry_kind(entry)
    icon = ICONS.get(kind, "·")
    if isinstance(entry, MessageEntry):
        message = entry.message
        if isinstance(message, UserMessage):
            return RowText(icon, first_line(message.text, limit), "user")
        if isinstance(message, ToolResultMessage):
            call = calls.get(message.tool_call_id)
            text = format_tool_call(call.name, call.arguments) if call else message.tool_name
            return RowText(icon, text, "error" if message.is_error else "tool")
        text = first_line(message.text, limit)
        if text:
            return RowText(icon, text, "error" if kind == "assistant-error" else "assistant")
        if message.stop_reason == "aborted":
            return RowText(icon, "(aborted)", "error")
        if message.error_message:
            return RowText(icon, first_line(message.error_message, limit), "error")
        if message.tool_calls:
            names = ", ".join(format_tool_call(call.name, call.arguments) for call in message.tool_calls)
            return RowText(icon, "→ " + first_line(names, limit), "tool")
        return RowText(icon, "(no content)", "meta")
    if isinstance(entry, BranchSummaryEntry):
        return RowText(icon, "branch summary: " + first_line(entry.summary, limit), "summary")
    if isinstance(entry, CompactionEntry):
        return RowText(icon, f"compaction: {round(entry.tokens_before / 1000)}k tokens", "summary")
    if isinstance(entry, CustomMessageEntry):
        return RowText(icon, f"[{entry.custom_type}] " + first_line(entry.text, limit), "custom")
    if isinstance(entry, CustomEntry):
        return RowText(icon, f"custom: {entry.custom_type}", "meta")
    if isinstance(entry, ModelChangeEntry):
        provider, model = entry.resolved
        return RowText(icon, f"model: {model or '?'}" + (f" ({provider})" if provider else ""), "meta")
    if isinstance(entry, ThinkingLevelChangeEntry):
        return RowText(icon, f"thinking: {entry.thinking_level or 'off'}", "meta")
    if isinstance(entry, LabelEntry):
        return RowText(icon, f"label: {entry.label if entry.label else '(cleared)'}", "meta")
    if isinstance(entry, SessionInfoEntry):
        return RowText(icon, f"name: {entry.name or '(cleared)'}", "meta")
    if isinstance(entry, RawEntry):
        return _describe_raw(entry, limit)
    return RowText(icon, entry.type, "meta")


def _describe_raw(entry: RawEntry, limit: int) -> RowText:
    """pi's extended message roles and entry types navtui does not model."""
    message = entry.raw.get("message")
    if entry.type == "message" and isinstance(message, dict):
        role = str(message.get("role", "message"))
        if role == "bashExecution":
            return RowText("$", "bash: " + first_line(str(message.get("command", "")), limit), "tool")
        if role == "branchSummary":
            return RowText(
                ICONS["summary"], "branch summary: " + first_line(str(message.get("summary", "")), limit), "summary"
            )
        content = message.get("content")
        text = content if isinstance(content, str) else ""
        if isinstance(content, list):
            text = " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
        return RowText("◆", f"[{role}] " + first_line(text, limit), "custom")
    return RowText("·", f"[{entry.type or 'unknown'}]", "meta")


def first_line(text: str, limit: int = TEXT_CHARS) -> str:
    """The first non-blank line, whitespace collapsed, cut at ``limit`` characters."""
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


def format_tool_call(name: str, args: dict[str, object]) -> str:
    """``read a.py:10-29``, ``shell: make test``, ``grep /TODO/ in src`` ... one short line."""

    def arg(*keys: str, default: str = "") -> str:
        for key in keys:
            value = args.get(key)
            if value not in (None, ""):
                return " ".join(str(value).split())
        return default

    if name == "read":
        path = arg("path", "file_path")
        offset, limit = args.get("offset"), args.get("limit")
        if isinstance(offset, int) or isinstance(limit, int):
            start = offset if isinstance(offset, int) else 1
            end = f"-{start + limit - 1}" if isinstance(limit, int) else ""
            path += f":{start}{end}"
        return f"read {path}"
    if name in ("write", "edit"):
        return f"{name} {arg('path', 'file_path')}"
    if name in ("shell", "bash"):
        command = arg("command")
        return f"{name}: {command[:60]}{'…' if len(command) > 60 else ''}"
    if name in ("grep", "find"):
        pattern = arg("pattern", "query")
        shown = f"/{pattern}/" if name == "grep" else pattern
        return f"{name} {shown} in {arg('path', default='.')}"
    if name == "ls":
        return f"ls {arg('path', default='.')}"
    if name in ("code_search", "symbols"):
        return f"{name} {arg('query', 'name')}"
    encoded = json.dumps(args, ensure_ascii=False, default=str)
    return f"{name} {encoded[:50]}{'…' if len(encoded) > 50 else ''}"


def short_time(timestamp: str, now: datetime) -> str:
    """``14:05`` today, ``Mar 05`` this year, ``2024-03-05`` before; "" when unreadable. Local time."""
    try:
        moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00")).astimezone(now.tzinfo)
    except (ValueError, TypeError):
        return ""
    if moment.date() == now.date():
        return moment.strftime("%H:%M")
    if moment.year == now.year:
        return moment.strftime("%b %d")
    return moment.strftime("%Y-%m-%d")
