"""The entries of one session indexed as a tree: by id, parent links, labels and the session name (pi's
``session_info`` or omp's ``title_change``, whichever came last)."""

from __future__ import annotations

from dataclasses import dataclass, field

from navtui.session.entries import Entry, LabelEntry, RawEntry, SessionInfoEntry


@dataclass(eq=False)
class TreeNode:
    entry: Entry
    children: list[TreeNode] = field(default_factory=list)
    label: str | None = None


class EntryIndex:
    """Entries in file order plus what is derived from them. Only the first entry with a given id is indexed."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.by_id: dict[str, Entry] = {}
        self.labels: dict[str, str] = {}
        self.name: str | None = None
        self.duplicate_ids = 0
        self._children: dict[str, list[Entry]] = {}

    def add(self, entry: Entry) -> None:
        self.entries.append(entry)
        entry_id = entry.id
        if entry_id is not None:
            if entry_id in self.by_id:
                self.duplicate_ids += 1
            else:
                self.by_id[entry_id] = entry
                if entry.parent_id is not None and entry.parent_id != entry_id:
                    self._children.setdefault(entry.parent_id, []).append(entry)
        if isinstance(entry, LabelEntry):
            if entry.label:
                self.labels[entry.target_id] = entry.label
            else:
                self.labels.pop(entry.target_id, None)
        elif isinstance(entry, SessionInfoEntry):
            self.name = entry.name or None
        elif isinstance(entry, RawEntry) and entry.type == "title_change":  # omp's record of a renamed session
            title = entry.raw.get("title")
            self.name = title if isinstance(title, str) and title else None

    def last_id(self) -> str | None:
        """The newest indexed entry (the leaf a freshly opened session starts at)."""
        for entry in reversed(self.entries):
            if entry.id is not None and self.by_id.get(entry.id) is entry:
                return entry.id
        return None

    def path(self, leaf_id: str) -> list[Entry]:
        """Root to ``leaf_id`` (a broken chain stops at the first missing parent; a cycle at its repeat)."""
        out: list[Entry] = []
        seen: set[str] = set()
        entry = self.by_id.get(leaf_id)
        while entry is not None and entry.id not in seen:
            seen.add(entry.id)  # type: ignore[arg-type]
            out.append(entry)
            parent = entry.parent_id
            entry = self.by_id.get(parent) if parent is not None else None
        out.reverse()
        return out

    def children(self, parent_id: str | None) -> list[Entry]:
        """Direct children of ``parent_id`` in file order; ``None``: the roots (orphans included)."""
        if parent_id is not None:
            return list(self._children.get(parent_id, ()))
        return [
            entry for entry in self.by_id.values() if entry.parent_id not in self.by_id or entry.parent_id == entry.id
        ]

    def tree(self) -> list[TreeNode]:
        """Every indexed entry as a forest; children oldest first. Orphans and cycle members become roots."""
        nodes = {entry_id: TreeNode(entry, label=self.labels.get(entry_id)) for entry_id, entry in self.by_id.items()}
        roots: list[TreeNode] = []
        parent_of: dict[str, TreeNode] = {}
        for entry_id, node in nodes.items():
            parent_id = node.entry.parent_id
            parent = nodes.get(parent_id) if parent_id is not None and parent_id != entry_id else None
            if parent is None:
                roots.append(node)
            else:
                parent.children.append(node)
                parent_of[entry_id] = parent
        reached = _reach(roots)
        if len(reached) < len(nodes):
            for entry_id, node in nodes.items():  # cycles: cut each at its first member in file order
                if entry_id not in reached:
                    parent_of[entry_id].children.remove(node)
                    roots.append(node)
                    reached |= _reach([node])
        roots.sort(key=_by_time)
        stack = list(roots)
        while stack:
            node = stack.pop()
            if len(node.children) > 1:
                node.children.sort(key=_by_time)
            stack.extend(node.children)
        return roots


def _by_time(node: TreeNode) -> str:
    return node.entry.timestamp


def _reach(roots: list[TreeNode]) -> set[str]:
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        entry_id = node.entry.id
        if entry_id in seen:
            continue
        seen.add(entry_id)  # type: ignore[arg-type]
        stack.extend(node.children)
    return seen
