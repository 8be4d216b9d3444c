"""Where session files live, what a listing shows about each, and resolving an id prefix to a file.

Files are ``<sessions root>/--<cwd with / replaced by ->--/<timestamp>_<id>.jsonl`` (pi's layout, under
``~/.navtui/sessions``). A summary reads the file's bytes once and decodes only the lines it needs; lines that
are not whole JSON objects (torn by a crash, corrupted) are not counted as entries.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from navtui.config.paths import sessions_dir
from navtui.core.errors import NavtuiError
from navtui.session.foreign import Origin, foreign_dirs, origin_of
from navtui.session.interop import parse_title_slot, prompt_words

TITLE_CHARS = 80
_INTERESTING = re.compile(rb'"(?:type|role)":\s*"(session_info|title_change|label|model_change|assistant)"')


@dataclass
class SessionSummary:
    path: Path
    id: str
    cwd: str
    name: str  # the session's name, else its first prompt (one line), else ""
    named: bool  # True when ``name`` was set explicitly (/name), not taken from the first prompt
    modified: datetime
    entry_count: int
    model: str | None = None
    labels: list[str] = field(default_factory=list)
    origin: Origin = "navtui"  # whose sessions folder the file is in: navtui's, pi's or omp's

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["path"] = str(self.path)
        data["modified"] = self.modified.isoformat()
        return data


def encode_cwd(cwd: Path) -> str:
    text = str(cwd).lstrip("/\\")
    return "--" + re.sub(r"[/\\:]", "-", text) + "--"


def project_sessions_dir(cwd: Path, root: Path | None = None) -> Path:
    return (root or sessions_dir()) / encode_cwd(cwd)


def new_session_id() -> str:
    return secrets.token_hex(8)


def new_session_path(cwd: Path, session_id: str, root: Path | None = None) -> Path:
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H-%M-%S-%f")[:-3] + "Z"
    return project_sessions_dir(cwd, root) / f"{stamp}_{session_id}.jsonl"


def id_from_filename(path: Path) -> str:
    return path.stem.rpartition("_")[2] or path.stem


SHORT_ID = 8  # characters of an id shown where the others differ sooner (navtui's ids are random)


def short_ids(ids: list[str], least: int = SHORT_ID) -> list[str]:
    """Each id cut to the fewest characters, ``least`` or more, that no other of ``ids`` starts with: what ``-r``
    takes without a doubt. pi's and omp's ids are UUIDv7, whose first 8 characters are the time: two sessions
    started within the same minute share them."""
    ordered = sorted({i.lower() for i in ids})
    needed: dict[str, int] = {}
    for one, other in zip(ordered, ordered[1:], strict=False):
        common = len(os.path.commonprefix([one, other])) + 1
        needed[one], needed[other] = max(needed.get(one, 0), common), max(needed.get(other, 0), common)
    return [i[: max(least, needed.get(i.lower(), 0))] for i in ids]


def short_id(session_id: str, cwd: Path, root: Path | None = None) -> str:
    """``session_id`` as short as ``-r`` takes it in ``cwd`` (its sessions are listed: a few directory reads)."""
    others = [id_from_filename(path) for path in session_files(cwd.resolve(), root)]
    return short_ids([session_id, *others])[0]


def session_files(cwd: Path | None, root: Path | None = None) -> list[Path]:
    """Session files for ``cwd`` (all directories when ``None``), newest first: navtui's, and (unless ``root``
    names another sessions folder) those pi and omp keep in their own folders."""
    pattern = "*.jsonl" if cwd is not None else "*/*.jsonl"
    folders = [project_sessions_dir(cwd, root) if cwd is not None else (root or sessions_dir())]
    if root is None:
        folders += [folder for _origin, folder in foreign_dirs(cwd)]
    files: list[Path] = []
    for folder in folders:
        try:
            files.extend(folder.glob(pattern) if folder.is_dir() else [])
        except OSError:  # a folder above it the user may not enter (is_dir raises): unreadable_folders says so
            continue
    dated = []
    for path in files:
        try:
            info = path.stat()
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):  # a named pipe or a link to a device: opening it would wait or never end
            dated.append((info.st_mtime, path))
    dated.sort(key=lambda item: item[0], reverse=True)
    return [path for _, path in dated]


def unreadable_folders(cwd: Path | None, root: Path | None = None) -> list[str]:
    """What to tell the user about the session folders of ``cwd`` (every directory when ``None``) that exist but
    cannot be listed: their sessions were left out of the listing, ``-c`` and the picker, which said only "no
    sessions" (a folder made by another user, or a mode changed by hand)."""
    scope = cwd.resolve() if cwd is not None else None
    folders = [project_sessions_dir(scope, root) if scope is not None else (root or sessions_dir())]
    if root is None:
        folders += [folder for _origin, folder in foreign_dirs(scope)]
    if scope is None:  # every directory's folder too
        folders += [sub for folder in folders if folder.is_dir() for sub in _subfolders(folder)]
    notes = []
    for folder in folders:
        try:
            os.scandir(folder).close()
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            why = exc.strerror or str(exc)
            if not isinstance(exc, PermissionError):  # a link to nowhere, a loop of links
                notes.append(
                    f"Cannot read the session folder {folder} ({why}): its sessions are left out; "
                    "remove it or point it at a folder."
                )
                continue
            closed = _first_closed(folder)
            where = f"{folder} ({why})" if closed == folder else f"{folder}: {closed} cannot be entered ({why})"
            notes.append(
                f"Cannot read the session folder {where}: its sessions are left out; "
                f"`chmod u+rwx {closed}` (as its owner) gives them back."
            )
    return notes


def _first_closed(folder: Path) -> Path:
    """The first folder on the way to ``folder`` the user may not enter (or ``folder``, which it may not read)."""
    for part in [*reversed(folder.parents), folder]:
        if not os.access(part, os.X_OK):
            return part
    return folder


def _subfolders(folder: Path) -> list[Path]:
    try:
        with os.scandir(folder) as entries:
            return [
                Path(entry.path) for entry in entries if entry.is_symlink() or entry.is_dir()
            ]  # a loop of links raises on is_dir
    except OSError:
        return []


def list_sessions(cwd: Path | None, *, root: Path | None = None) -> list[SessionSummary]:
    """Summaries of the sessions started in ``cwd`` (``None``: every directory), newest first."""
    scope = cwd.resolve() if cwd is not None else None
    out = []
    for path in session_files(scope, root):
        summary = summarize(path)
        if summary is not None and (scope is None or _belongs_here(summary.cwd, scope)):
            out.append(summary)
    return out


def _belongs_here(cwd: str, scope: Path) -> bool:
    """A file in ``scope``'s folder is ``scope``'s unless its header names another existing directory that
    encodes to the same folder name ("/a-b" and "/a/b"). A file copied from another machine, whose ``cwd``
    does not exist here, is found where it was put."""
    if not cwd or Path(cwd) == scope:
        return True
    other = Path(cwd)
    return encode_cwd(other) != encode_cwd(scope) or not other.is_dir()


def summarize(path: Path) -> SessionSummary | None:
    """A listing row for one file; ``None`` when it is not a readable session file."""
    from navtui.config.repo_files import read_regular

    try:
        # Opened without waiting, and only a regular file (links followed): a named pipe or a link to /dev/zero
        # left in pi's or omp's folder held `navtui sessions`, `-c` and the session picker for ever.
        data, _ = read_regular(path, 1 << 40, inside=None)
        modified = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:
        return None
    first_end = data.find(b"\n")
    header = _decode(data[: first_end if first_end >= 0 else len(data)])
    body_start = first_end + 1 if first_end >= 0 else len(data)
    slot = parse_title_slot(header)
    if slot is not None:  # omp 17+: the title slot, then the header
        second_end = data.find(b"\n", body_start)
        header = _decode(data[body_start : second_end if second_end >= 0 else len(data)])
        body_start = second_end + 1 if second_end >= 0 else len(data)
    if header is None or header.get("type") != "session":
        return None
    title = slot.title if slot is not None else header.get("title")
    name: str | None = title if isinstance(title, str) and title else None
    named = bool(name) and (slot.source if slot is not None else header.get("titleSource")) == "user"
    model: str | None = _header_model(header)
    labels: dict[str, str] = {}
    for match in _INTERESTING.finditer(data):
        record = _decode(_line_at(data, match.start()))
        if record is None:
            continue
        kind = match.group(1)
        if kind == b"session_info" and record.get("type") == "session_info":
            name = record.get("name") if isinstance(record.get("name"), str) and record.get("name") else None
            named = name is not None
        elif kind == b"title_change" and record.get("type") == "title_change" and isinstance(record.get("title"), str):
            name, named = record["title"] or None, record.get("source") == "user" and bool(record["title"])
        elif kind == b"label" and record.get("type") == "label" and isinstance(record.get("targetId"), str):
            label = record.get("label")
            if isinstance(label, str) and label:
                labels[record["targetId"]] = label
            else:
                labels.pop(record["targetId"], None)
        elif kind == b"model_change" and record.get("type") == "model_change":
            model = _text(record.get("modelId")) or _text(record.get("model")) or model
        elif kind == b"assistant" and record.get("type") == "message" and isinstance(record.get("message"), dict):
            model = _text(record["message"].get("model")) or model
    prompt = "" if name else _first_prompt(data)
    return SessionSummary(
        path=path,
        id=header_id if isinstance(header_id := header.get("id"), str) else id_from_filename(path),
        cwd=header_cwd if isinstance(header_cwd := header.get("cwd"), str) else "",
        name=_one_line(name or prompt),
        named=named,
        modified=modified,
        entry_count=_count_entries(data, body_start),
        model=model,
        labels=list(labels.values()),
        origin=origin_of(path),
    )


def resolve_session(cwd: Path, query: str, *, root: Path | None = None) -> Path:
    """A path, or an id / file-name prefix matched in ``cwd``'s sessions first and then everywhere."""
    candidate = Path(query).expanduser()
    if candidate.is_file():
        return candidate.resolve()
    if candidate.suffix == ".jsonl" or "/" in query:
        raise NavtuiError(f"No session file at {candidate}", hint="give a path to a .jsonl file or a session id")
    wanted = query.strip().lower()
    if not wanted:
        raise NavtuiError("No session id given", hint="`navtui sessions` lists the sessions of this directory")
    for scope in (cwd.resolve(), None):
        matches = [path for path in session_files(scope, root) if _matches(path, wanted)]
        exact = [path for path in matches if id_from_filename(path).lower() == wanted]
        if len(exact) == 1 or len(matches) == 1:
            return (exact or matches)[0]
        if matches:
            shown = ", ".join(id_from_filename(path) for path in matches[:5])
            raise NavtuiError(
                f"'{query}' matches {len(matches)} sessions ({shown}{', ...' if len(matches) > 5 else ''})",
                hint="give more characters of the id",
            )
    raise NavtuiError(f"No session matches '{query}'", hint="`navtui sessions --all` lists every session")


def _matches(path: Path, wanted: str) -> bool:
    return id_from_filename(path).lower().startswith(wanted) or path.name.lower().startswith(wanted)


def _line_at(data: bytes, position: int) -> bytes:
    start = data.rfind(b"\n", 0, position) + 1
    end = data.find(b"\n", position)
    return data[start : end if end >= 0 else len(data)]


def _decode(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _count_entries(data: bytes, start: int) -> int:
    """Lines after the header shaped like one JSON object each (a full parse would double a listing's time)."""
    count = 0
    for line in data[start:].split(b"\n"):
        line = line.strip(b"\x00 \t\r")  # NULs a crash left before a good line do not make it unreadable
        if line[:1] == b"{" and line[-1:] == b"}":
            count += 1
    return count


def _header_model(header: dict[str, Any]) -> str | None:
    model = header.get("modelId") or header.get("model")  # pi v1 headers carried the model
    return model if isinstance(model, str) else None


def _first_prompt(data: bytes, limit: int = 4 * 1024 * 1024) -> str:
    """The first user message's words; in a session of ``!cmd`` / ``$code`` runs only, the first run as typed."""
    start, first_run = 0, ""
    while start < min(len(data), limit):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        line = data[start:end]
        if b'"user"' in line or (not first_run and b'Execution"' in line):
            record = _decode(line)
            message = (record or {}).get("message")
            if record and record.get("type") == "message" and isinstance(message, dict):
                role = message.get("role")
                if role == "user":
                    return prompt_words(_message_text(message.get("content")))
                typed = message.get("command") if role == "bashExecution" else message.get("code")
                if not first_run and role in ("bashExecution", "pythonExecution") and isinstance(typed, str):
                    first_run = ("!" if role == "bashExecution" else "$") + typed
        start = end + 1
    return first_run


def _message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and _text(b.get("text"))
        )
    return ""


def _text(value: object) -> str | None:
    """``value`` when a file holds a string where one belongs (another tool's file may hold anything there)."""
    return value if isinstance(value, str) else None


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"
