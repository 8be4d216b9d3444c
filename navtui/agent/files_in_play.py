"""The files in play, shown whole in each request of a protocol that wants them (``edits``).

Before each request the hook picks, in this order and within the room the window leaves:

1. files attached to a prompt (``@path``, or named in it: ``<attached_file>`` blocks);
2. files the run touched (``write``/``edit``/``read`` calls), newest first, then files its commands named
   (``python3 test_calc.py``, ``cat data.csv``);
3. the workspace modules the Python files so far import (``from shop.pricing import ...``: shop/pricing.py),
   and the ones those import, each only if it fits whole: the code a failing test runs, which the prompt does
   not name (the 1.5B, shown only test_pricing.py, rewrote the test: the bug was in shop/discount.py);
4. the files of the repository index's note for the first prompt;
5. workspace files that mention a name the prompt uses (``compute_total``, ``parse_header``, ``TIMEOUT``).

Each is read afresh (so the model edits what is on disk now) and, shown whole, counts as read. A file the room
cannot hold is shown as the lines that mention the prompt's names, with a few lines around them (enough for a
search/replace block; it does not count as read, so it cannot be overwritten wholesale), or by name only. Never a protected file (``.env``, ``.git/config``) unless the user
attached it, never a binary. The room is what the window has left after the system prompt, the history and
a reserve for the answer: the request never outgrows the window. Where the server counts tokens (llama.cpp's
``/tokenize``) the chosen files are counted there, and chosen again in less room when bytes/4 undercounted them.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import TYPE_CHECKING

from navtui.agent.budget import estimate_text_tokens
from navtui.agent.hooks import AgentHooks
from navtui.core.messages import AssistantMessage, UserMessage, is_nudge
from navtui.core.walk import is_binary, walk_files
from navtui.providers.base import FileInPlay

if TYPE_CHECKING:
    from navtui.agent.loop import Agent
    from navtui.core.events import AgentEvent

FILE_LIMIT = 200_000  # bytes: a larger file is never shown whole
MAX_FILES = 8
MAX_SCANNED = 2000  # workspace files looked at for the prompt's names
DEFAULT_ROOM = 8000  # tokens for the files when the window is unknown
ANSWER_SHARE = 4  # a quarter of the window stays free for the answer (whole files are long answers)
MIN_ANSWER = 512
EXCERPT_CONTEXT = 3  # lines shown around a line that mentions a prompt's name in a file too long to show
IMPORT_DEPTH = 2  # a test imports the module, which imports the one with the bug

_ATTACHED = re.compile(r'<attached_file path="([^"]+)"')
_NOTE_FILE = re.compile(r"^### (\S+?):\d+-\d+", re.MULTILINE)
_WORD = re.compile(r"`([^`\s]{3,})`|\b([A-Za-z_][A-Za-z0-9_]*[_0-9A-Z][A-Za-z0-9_]*)\b")
_COMMON = {"README", "TODO", "OK", "JSON", "HTTP", "URL", "API", "CSV", "UTF", "ID"}
TOUCHING_TOOLS = ("write", "edit", "read")
NEW_FILE = "a new file: it does not exist yet"


def prompt_names(text: str) -> list[str]:
    """Code names a prompt uses: ``snake_case``, ``camelCase``, ``UPPER_CASE``, digits, or anything in backticks."""
    names: list[str] = []
    for match in _WORD.finditer(text.split("<attached_file", 1)[0]):
        word = match.group(1) or match.group(2)
        if "." in word or "/" in word or word in _COMMON or len(word) < 4 or word in names:
            continue  # a file name is attached by name; short words match everywhere
        if match.group(2) and word[1:].islower() and not any(c.isdigit() for c in word) and "_" not in word:
            continue
        names.append(word)
    return names[:6]


class FilesInPlayHooks(AgentHooks):
    """Chooses the files before each request of a provider that ``wants_files``; the request carries them."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd.resolve()
        self.files: list[FileInPlay] = []
        self._mentions: dict[str, list[str]] = {}  # prompt text -> files that mention its names (one scan each)

    def files_in_play(self, agent: Agent) -> list[FileInPlay]:
        return self.files if getattr(agent.provider, "wants_files", False) else []

    async def before_request(self, agent: Agent) -> AsyncGenerator[AgentEvent, None]:
        if not getattr(agent.provider, "wants_files", False):
            self.files = []
            return
        room = self._room(agent)
        self.files = await asyncio.to_thread(self._choose, agent, room)
        estimated = sum(_tokens(file) for file in self.files)
        counted = await self._count(agent, self.files)
        if counted is not None and counted > room and estimated:
            # bytes/4 undercounts dense text (a 300-line config: 2,492 estimated, 5,219 real tokens): choose again
            # as if the room were smaller by the same ratio, and count what that gives.
            scaled = int(room * estimated / counted * 0.9)
            self.files = await asyncio.to_thread(self._choose, agent, scaled)
            estimated = sum(_tokens(file) for file in self.files)
            counted = await self._count(agent, self.files)
        agent.files_tokens = max(estimated, counted or 0)
        return
        yield  # pragma: no cover

    @staticmethod
    async def _count(agent: Agent, files: list[FileInPlay]) -> int | None:
        """The files' size in the model's own tokens where the server can count them (llama.cpp), else None."""
        if not files:
            return 0
        text = "\n".join(file.path + "\n" + (file.text if file.text is not None else file.note) for file in files)
        try:
            counted = await agent.provider.count_tokens(text)
        except Exception:  # a count is a help; the estimate stands without it
            return None
        return counted + 12 * len(files) if counted is not None else None

    # ------------------------------------------------------------------ choosing
    def _room(self, agent: Agent) -> int:
        window = agent.budget.window
        rest = max(0, agent.budget.estimate(agent) - agent.files_tokens)  # without the attachments' copies
        if not window:
            return DEFAULT_ROOM
        answer = max(MIN_ANSWER, window // ANSWER_SHARE)
        return max(0, window - rest - answer)

    def _choose(self, agent: Agent, room: int) -> list[FileInPlay]:
        prompts = [
            m.content
            for m in agent.messages
            if isinstance(m, UserMessage) and isinstance(m.content, str) and not is_nudge(m.content)
        ]  # the user's words: a nudge of navtui's ("I ran the check ...") is no request
        candidates: list[tuple[str, bool]] = []  # (path as written, attached by the user)
        for text in reversed(prompts):
            candidates.extend((path, True) for path in _ATTACHED.findall(text))
        commands: list[str] = []  # files a command used (``cat x.py``, ``python3 test_x.py``): after those touched
        for message in reversed(agent.messages):
            if isinstance(message, AssistantMessage):
                for call in reversed(message.tool_calls):
                    path = call.arguments.get("path")
                    if call.name in TOUCHING_TOOLS and isinstance(path, str):
                        candidates.append((path, False))
                    command = call.arguments.get("command")
                    if call.name == "shell" and isinstance(command, str):
                        commands.extend(_command_files(command))
        candidates.extend((path, False) for path in commands)
        first = len(candidates)  # the files the request and the run name; the imports of those come next
        for text in prompts:
            if "<repository_context>" in text:
                candidates.extend((path, False) for path in _NOTE_FILE.findall(text))
        names = [name for text in prompts for name in prompt_names(text)]
        if names:
            key = "\0".join(names)
            if key not in self._mentions:
                self._mentions[key] = self._mentioning(names)
            candidates.extend((path, False) for path in self._mentions[key])
        chosen: list[FileInPlay] = []
        seen: set[Path] = set()
        for index, (shown, attached) in enumerate(candidates):
            if index == first:
                room = self._imports(agent, chosen, seen, room)
            if len(chosen) >= MAX_FILES:
                break
            file = self._read(agent, shown, attached, seen, names, room)
            if file is not None and prompts and _deletes(prompts[-1], file.path):
                # Shown whole, the 1.5B wrote the log out again (new lines in it) instead of deleting it.
                note = f"the request deletes it: run rm {file.path} in a bash block"
                file = FileInPlay(file.path, None, note=note, hide=True)
            if file is not None:
                chosen.append(file)
                room -= _tokens(file)
        if first == len(candidates):
            room = self._imports(agent, chosen, seen, room)
        for shown in new_files(prompts[-1:], agent):  # "Create hello.py ...": a block without a path is that file
            if len(chosen) < MAX_FILES and room > 32:
                chosen.append(FileInPlay(shown, "", note=NEW_FILE))
        return chosen

    def _read(
        self, agent: Agent, shown: str, attached: bool, seen: set[Path], names: list[str], room: int
    ) -> FileInPlay | None:
        from navtui.tools.files.protected import protected_reason

        try:
            path = agent.ctx.workspace.resolve(shown)
        except Exception:
            return None
        if path in seen or not agent.ctx.workspace.contains(path) or not path.is_file():
            return None
        seen.add(path)
        if not attached and protected_reason(path) is not None:
            return None
        try:
            with path.open("rb") as handle:
                data = handle.read(FILE_LIMIT + 1)
        except OSError:
            return None
        if is_binary(data):
            return None
        rel = agent.ctx.workspace.display(path)
        text = data.decode("utf-8", errors="replace")
        if len(data) <= FILE_LIMIT and estimate_text_tokens(text) + 16 <= room:
            agent.ctx.file_state.record(path, data)
            return FileInPlay(rel, text)
        lines = len(text.splitlines())
        excerpt = _excerpt(text, names, room)
        if excerpt:
            note = (
                f"{lines} lines, too long to show whole; the lines that mention {', '.join(names)}, with their line "
                f"numbers (do not copy the numbers into a SEARCH section):\n{excerpt}"
            )
        else:
            note = f"{lines} lines, too long to show; look into it with a command (grep -n, sed -n)"
        if estimate_text_tokens(note) + 16 > room:
            return None
        # Its attachment's whole copy is left out of the request now (providers/edits.py): what the model sees of
        # it is this part, so write refuses to replace it whatever path spelling a block reaches it by.
        agent.ctx.file_state.mark_partial(path)
        return FileInPlay(rel, None, note=note)

    def _imports(self, agent: Agent, chosen: list[FileInPlay], seen: set[Path], room: int) -> int:
        """Append the workspace modules the chosen Python files import, two levels deep, each shown whole or not
        at all (an excerpt of code nobody named helps nobody); the room left."""
        level = list(chosen)
        for _ in range(IMPORT_DEPTH):
            found: list[FileInPlay] = []
            for file in level:
                if file.text is None or not file.path.endswith(".py"):
                    continue
                for shown in imported_files(file.path, file.text, self.cwd):
                    if len(chosen) >= MAX_FILES:
                        return room
                    try:
                        path = agent.ctx.workspace.resolve(shown)
                    except Exception:
                        continue
                    if path in seen or not path.is_file():
                        continue
                    try:
                        size = path.stat().st_size
                    except OSError:
                        continue
                    if size // 4 + 16 > room:
                        continue  # not whole: skip it, and leave it unseen for a later, roomier request
                    imported = self._read(agent, shown, False, seen, [], room)
                    if imported is None or imported.text is None:
                        continue
                    chosen.append(imported)
                    found.append(imported)
                    room -= _tokens(imported)
            level = found
        return room

    def _mentioning(self, names: list[str]) -> list[str]:
        """Workspace text files that use one of ``names``, those using the most first."""
        found: list[tuple[int, str]] = []
        for count, walked in enumerate(walk_files(self.cwd)):
            if count >= MAX_SCANNED:
                break
            if walked.size > FILE_LIMIT:
                continue
            try:
                data = walked.path.read_bytes()
            except OSError:
                continue
            if is_binary(data):
                continue
            text = data.decode("utf-8", errors="replace")
            hits = sum(text.count(name) for name in names)
            if hits:
                found.append((hits, walked.rel))
        found.sort(key=lambda item: -item[0])
        return [rel for _, rel in found[:MAX_FILES]]


_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+\(?([\w, \t]+)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*)", re.M)


def imported_files(path: str, text: str, root: Path) -> list[str]:
    """The workspace files a Python file's imports name, as workspace-relative paths that exist.

    ``import a.b`` and ``from a.b import c`` are ``a/b.py`` (or ``a/b/__init__.py``); ``from a import b`` is also
    ``a/b.py`` when b is a module. They are looked for beside the importing file (how ``python3 dir/x.py`` finds
    them), then at the workspace root; ``from .x import y`` is relative to the file's package."""
    here = Path(path).parent
    modules: list[tuple[int, list[str]]] = []  # (leading dots, dotted parts)
    for match in _FROM.finditer(text):
        dots = len(match.group(1)) - len(match.group(1).lstrip("."))
        parts = [part for part in match.group(1).lstrip(".").split(".") if part]
        if parts:
            modules.append((dots, parts))
        for name in re.split(r"[\s,]+", match.group(2)):
            if name and name != "as" and name.isidentifier():
                modules.append((dots, [*parts, name]))  # a module only if such a file exists
    for match in _IMPORT.finditer(text):
        modules.extend((0, name.split(".")) for name in re.split(r"[ \t]*,[ \t]*", match.group(1)))
    out: list[str] = []
    for dots, parts in modules:
        if dots:
            base = here
            for _ in range(dots - 1):
                base = base.parent
            bases = [base]
        else:
            bases = list(dict.fromkeys([here, Path()]))
        for rel in (b.joinpath(*parts).with_suffix(".py") for b in bases):
            shown = rel.as_posix()
            if shown != path and (root / rel).is_file():
                if shown not in out:
                    out.append(shown)
                break
    return out


def new_files(prompts: list[str], agent: Agent) -> list[str]:
    """Files the prompt names that do not exist yet, in the workspace (never a protected path)."""
    from navtui.agent.attachments import named_paths
    from navtui.tools.files.protected import protected_reason

    out: list[str] = []
    for text in prompts:
        for shown in named_paths(text):
            try:
                path = agent.ctx.workspace.resolve(shown)
            except Exception:
                continue
            if path.exists() or not agent.ctx.workspace.contains(path) or protected_reason(path) is not None:
                continue
            if ".." in shown.lstrip("./"):
                continue  # "to the range low..high": no file name
            if re.search(rf"\b(?:like|e\.g\.|such as|for example)[,:]?\s+`?{re.escape(shown)}", text, re.IGNORECASE):
                continue  # "its path (relative, like a/b.py)": a shape, not a file to create
            if shown not in out:
                out.append(shown)
    return out[:2]


_DELETE = re.compile(r"\b(?:delete|remove|rm)\s+(?:the\s+)?(?:file\s+)?`?([\w./-]+\.\w+)", re.IGNORECASE)


# "Do not delete config.py, ...": the words before the verb, in its sentence, that turn it into "keep".
_KEEP = re.compile(r"(?:\bnot|n't|\bnever|\bwithout|\bno need to|\binstead of)\W+(?:\w+\W+){0,2}$", re.IGNORECASE)


def _deletes(prompt: str, path: str) -> bool:
    """Whether the prompt asks to delete the file (``Delete the file debug.log``), by its path or its name; not
    when it says not to ("Do not delete config.py, just fix it": the file was hidden and rm asked for)."""
    words = prompt.split("<attached_file", 1)[0]
    for match in _DELETE.finditer(words):
        before = re.split(r"[.!?;\n]", words[max(0, match.start() - 60) : match.start()])[-1]
        if match.group(1) in (path, path.rsplit("/", 1)[-1]) and not _KEEP.search(before):
            return True
    return False


def _command_files(command: str) -> list[str]:
    """The words of a command that name a file by its extension (``test_calc.py``, ``data.csv``)."""
    words = re.findall(r"[\w./-]+\.[A-Za-z0-9]{1,8}\b", command)
    return [word for word in words if not word.startswith(("-", "/")) and ".." not in word]


def _excerpt(text: str, names: list[str], room: int) -> str:
    """The lines of ``text`` that mention ``names``, with context and line numbers, within ``room`` tokens."""
    if not names:
        return ""
    lines = text.splitlines()
    keep: set[int] = set()
    for number, line in enumerate(lines):
        if any(name in line for name in names):
            keep.update(range(max(0, number - EXCERPT_CONTEXT), min(len(lines), number + EXCERPT_CONTEXT + 1)))
    out: list[str] = []
    previous = -2
    used = 0
    for number in sorted(keep):
        if number != previous + 1 and out:
            out.append("...")
        entry = f"{number + 1}: {lines[number]}"
        used += estimate_text_tokens(entry) + 1
        if used > room * 0.8:
            break
        out.append(entry)
        previous = number
    return "\n".join(out)


def _tokens(file: FileInPlay) -> int:
    return estimate_text_tokens(file.path + (file.text if file.text is not None else file.note)) + 12
