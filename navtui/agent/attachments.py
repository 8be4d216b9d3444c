"""Files go with a prompt: one step for ``@path`` and for the files a prompt names, in every mode.

``agent/prepare.py`` (which ``Runtime.run`` runs) calls :func:`attach_files` for the app, ``--print`` and
``--json`` alike. A file reaches the model after the user's words, in ``<attached_file path="...">`` blocks (the transcript shows only "attached: path"),
and counts as read, so the model may edit it without a read call first. The two ways of naming a file differ
only in what the user asked for:

- ``@path`` (``@"my notes.md"`` for a path with a space) is an explicit request: any readable text file, cut at 100 KB; what cannot be attached (a binary, an
  unreadable file) is a warning. An ``@mention`` that is no file (an e-mail address, a decorator) stays text.
- A file named without the ``@`` ("Read README.md and ...") is a guess made for small models, which do better
  seeing the file than writing a read call: only workspace files, never a protected one (``.env``,
  ``.git/config``), at most four, and only while the budget lasts; a file over it is said in a notice.

Both share one budget, a quarter of the window (32 KB when the window is unknown): ``@path`` files are taken
first and always (the user asked for them), named files get what is left. A file named both ways, or twice,
is attached once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from navtui.core.display import shown_byte_forms
from navtui.core.events import Notice
from navtui.core.walk import is_binary
from navtui.tools.files.protected import protected_reason

ATTACH_LIMIT = 100_000  # bytes of one attached file
MAX_NAMED = 4  # files attached because the prompt names them
DEFAULT_BUDGET = 32_000  # bytes for all attachments, when the window is unknown
WINDOW_SHARE = 0.25  # of the window (in bytes at ~4 per token) the attachments may take

# ``@path``, or ``@"path with spaces"`` (as the completion list writes a path that holds a space)
_AT_TOKEN = re.compile(r'(?:^|(?<=\s))@(?:"([^"\n]+)"|(\S+))')
# A file name as people write it in a prompt: a path with an extension, not part of a URL or an @mention.
# A file name is no version ("numpy>=1.26": the 1.5B was asked for a new file 1.26 and wrote one).
_NAMED = re.compile(
    r"(?<![\w@/.:=<>~^-])(?![\d.]+(?![\w/]))((?:\.{0,2}/)?(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,8})(?![\w/])"
)
_BLOCK = re.compile(r'<attached_file path="([^"]+)"')

Seen = Callable[[Path, bytes | None], None]  # told each attached file (its bytes when whole): it counts as read


@dataclass
class Attached:
    """The prompt for the model, the paths attached, and what to tell the user about the rest."""

    text: str
    paths: list[str] = field(default_factory=list)  # every file attached, as the prompt wrote it
    named: list[str] = field(default_factory=list)  # those of them the prompt named without an @
    problems: list[str] = field(default_factory=list)  # @path files not attached, and why
    skipped: list[str] = field(default_factory=list)  # named files not attached: "path (why)"

    def notices(self) -> list[Notice]:
        notices = [Notice(text=problem, level="warning") for problem in self.problems]
        if self.named:
            notices.append(Notice(text=f"Attached {', '.join(self.named)}: named in the prompt.", level="info"))
        if self.skipped:
            notices.append(Notice(text=f"Not attached: {'; '.join(self.skipped)}.", level="info"))
        return notices


@dataclass(frozen=True)
class _Ref:
    shown: str  # as the prompt writes it
    path: Path  # resolved
    explicit: bool  # an @path


def budget_for(window: int | None) -> int:
    return int(window * 4 * WINDOW_SHARE) if window else DEFAULT_BUDGET


def attached_paths(text: str) -> list[str]:
    """The ``@path`` references in a prompt, in order, without repeats."""
    seen: list[str] = []
    for match in _AT_TOKEN.finditer(text):
        path = _mention_path(match)
        if path and path not in seen:
            seen.append(path)
    return seen


def _mention_path(match: re.Match[str]) -> str:
    quoted, bare = match.groups()
    return quoted if quoted is not None else bare.rstrip(".,;:!?)")


def mention_as_written(word: str) -> str:
    """A word that shell-style splitting took the quotes off (``shlex.split``): an ``@path`` with a space gets them
    back (``@"my notes.md"``, as the completion list writes it), so that it is attached whole; any other word as
    it is."""
    path = word[1:]
    if word.startswith("@") and any(c.isspace() for c in path) and '"' not in path and "\n" not in path:
        return f'@"{path}"'
    return word


def inert_mentions(text: str, keep: str = "") -> str:
    """``text`` (words someone else wrote: an MCP server's prompt) with each ``@mention`` put in backticks, so that
    it attaches no file and no resource; the mentions that the user's own words ``keep`` write stay live."""
    own = set(attached_paths(keep))
    return _AT_TOKEN.sub(lambda m: m.group(0) if _mention_path(m) in own else f"`{m.group(0)}`", text)


def named_paths(prompt: str) -> list[str]:
    """Every file name the prompt's words write (``hello.py``, ``src/util/strings.py``), existing or not."""
    words = prompt.split("<attached_file", 1)[0]
    return [match.group(1).rstrip(".") for match in _NAMED.finditer(words)]


def named_files(prompt: str, cwd: Path) -> list[str]:
    """Workspace files the prompt names without an ``@``, in order, as the step would attach them."""
    return [ref.shown for ref in _references(prompt, cwd, named=True) if not ref.explicit]


def attach_files(
    text: str, cwd: Path, *, window: int | None = None, named: bool = True, seen: Seen | None = None
) -> Attached:
    """The prompt with its ``@path`` files (and, with ``named``, the files it names) appended. Blocking (reads)."""
    result = Attached(text)
    budget = budget_for(window)
    blocks: list[str] = []
    for ref in _references(text, cwd, named):
        limit = ATTACH_LIMIT if ref.explicit else min(ATTACH_LIMIT, budget)
        try:
            with ref.path.open("rb") as handle:
                data = handle.read(limit + 1)
        except OSError as exc:
            _refuse(result, ref, f"cannot read: {exc.strerror or exc}")
            continue
        if is_binary(data):
            if ref.explicit:  # a named binary is no surprise: the model can ask for a description
                _refuse(result, ref, "a binary file")
            continue
        whole = len(data) <= limit
        if not whole and not ref.explicit:
            room = f"the {budget} left for attachments" if limit == budget else f"the {ATTACH_LIMIT} a file may take"
            _refuse(result, ref, f"{max(len(data), _size(ref.path))} bytes, more than {room}")
            continue
        body = data[:limit]
        budget = max(0, budget - len(body))
        if seen is not None:
            seen(ref.path, body if whole else None)
        blocks.append(_block(ref.shown, body, cut=not whole))
        result.paths.append(ref.shown)
        if not ref.explicit:
            result.named.append(ref.shown)
    if blocks:
        result.text = text.rstrip() + "\n\n" + "\n".join(blocks) + "\n"
    return result


def _references(text: str, cwd: Path, named: bool) -> list[_Ref]:
    """The files to attach: the ``@path`` ones, then the named ones; each file once, none already attached."""
    words = text.split("<attached_file", 1)[0]  # a prompt that went through this step keeps its blocks
    taken = {_on_disk(cwd, shown) for shown in _BLOCK.findall(text)}
    refs: list[_Ref] = []
    for shown in attached_paths(words):
        path = _on_disk(cwd, shown)
        if path.is_file() and path not in taken:  # an @mention that is no file stays plain text
            taken.add(path)
            refs.append(_Ref(shown, path, explicit=True))
    if not named:
        return refs
    root = cwd.resolve()
    count = 0
    for match in _NAMED.finditer(words):
        shown = match.group(1).rstrip(".")
        path = (root / shown).resolve()
        if count == MAX_NAMED or path in taken or not path.is_file() or not path.is_relative_to(root):
            continue
        if protected_reason(path) is not None:
            continue  # a protected file (.env, .git/config) is never sent unless the user asks with @
        taken.add(path)
        refs.append(_Ref(shown, path, explicit=False))
        count += 1
    return refs


def _on_disk(cwd: Path, shown: str) -> Path:
    """The file an ``@path`` names: as written, else the one whose name is not UTF-8 and shows as written
    (``@\\xff.txt``: the completion list put the name there as the prompt shows it, ``display_safe``)."""
    path = (cwd / shown).resolve()
    if not path.exists():
        for raw in shown_byte_forms(shown):
            if (found := (cwd / raw).resolve()).exists():
                return found
    return path


def _refuse(result: Attached, ref: _Ref, why: str) -> None:
    if ref.explicit:
        result.problems.append(f"@{ref.shown}: {why}, not attached")
    else:
        result.skipped.append(f"{ref.shown} ({why})")


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _block(shown: str, data: bytes, cut: bool) -> str:
    body = data.decode("utf-8", errors="replace")
    note = f' truncated="{ATTACH_LIMIT} bytes"' if cut else ""
    end = "" if body.endswith("\n") else "\n"
    return f'<attached_file path="{shown}"{note}>\n{body}{end}</attached_file>'
