"""Reading the edit blocks of a Markdown reply (``providers.tool_protocol: edits``), leniently.

A reply is prose with fenced blocks. A block is one of:

- a whole file: the path, then the file's complete new content in a fence;
- search/replace: the path, then ``<<<<<<< SEARCH`` / ``=======`` / ``>>>>>>> REPLACE`` sections (in a fence or not);
- a command: a ``bash``/``sh`` fence, or a fence whose lines are all command lines (``python3 app.py``);
- anything else is a code sample and stays text.

Small models write the shapes loosely, and every shape seen is read: the path on the line before the fence (bare,
``**bold**``, in backticks, after ``###`` or ``File:``, ending in a colon, at the end of a short sentence, the one
file in play a long sentence ending in a colon names), in the info string (```` ```python hello.py ````,
```` ```hello.py ````, ```` ```python:hello.py ````), or as the first line inside (``# hello.py``, ``// app.js``); a wrong or missing
info string; a fence indented as a list item's; markers with 5 to 9 characters and another word (``<<<<<<<
ORIGINAL``, ``>>>>>>> UPDATED``); no path at all when one file is in play (or the block is plainly one of the files
in play). The reader works line by line as text streams, so prose goes out at once and a block is
held only until its fence closes.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

_FENCE = re.compile(r"^(?P<indent>[ \t]{0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
_SEARCH = re.compile(r"^\s*<{5,9}\s*(?:SEARCH|ORIGINAL|OLD|FIND|HEAD)?\s*:?\s*$", re.IGNORECASE)
_DIVIDER = re.compile(r"^\s*={5,9}\s*$")
_REPLACE = re.compile(r"^\s*>{5,9}\s*(?:REPLACE|UPDATED|NEW|UPDATE)?\s*:?\s*\S*\s*$", re.IGNORECASE)
_SHELL_LANGS = {"bash", "sh", "shell", "console", "zsh", "terminal", "cmd", "shell-session", "shellsession"}
# A file name: letters, digits, ``._-/``, and an extension or a slash (``Makefile`` and friends listed apart).
_PATH = re.compile(r"^(?:\./)?[\w.-]+(?:/[\w.-]+)*$")
_BARE_NAMES = {"Makefile", "Dockerfile", "LICENSE", "Procfile", "Gemfile", "Rakefile", "Justfile"}
_LABEL = re.compile(r"^(?:#{1,6}\s*)?(?:(?:file(?:name)?|path|updated|new|create|created)\s*:?\s+)?", re.IGNORECASE)
_COMMENT_PATH = re.compile(r"^\s*(?:#|//|--|;|/\*|<!--)\s*(?:file(?:name)?\s*:\s*)?(?P<path>\S+?)\s*(?:\*/|-->)?\s*$")
_COMMAND_WORDS = {
    "python", "python3", "pytest", "pip", "pip3", "ls", "cat", "grep", "rg", "find", "echo", "rm", "mv", "cp",
    "mkdir", "touch", "cd", "git", "make", "npm", "npx", "node", "go", "cargo", "sh", "bash", "chmod", "sed",
    "wc", "head", "tail", "sort", "uniq", "diff", "tree", "pwd", "printf", "test", "ruff", "mypy",
}  # fmt: skip
_ELISION = re.compile(
    r"^\s*(?:#|//|/\*|<!--|--)?\s*(?:\.\.\.|…)?\s*(?:\(?\s*(?:rest|remainder) of (?:the )?(?:code|file|content)"
    r"|(?:existing|other|previous|unchanged|same) (?:code|content|lines|functions|methods)"
    r"|\(?\s*(?:the )?rest (?:is |stays |remains )?unchanged"
    r"|\.\.\.\s*$|…\s*$)",
    re.IGNORECASE,
)
MAX_PATH_LINE = 100  # a longer line before a fence is prose, not a file name
PART_CONTEXT = 2  # unchanged lines kept around a change made from a file's shown part, so its SEARCH is unique
_NUMBERED_LINE = re.compile(r"^(\d+): (.*)$")  # an excerpt's line (files_in_play.py): "151: TIMEOUT = 30"
LONG_FILE_LINES = 150  # a file this long is better changed by search/replace than written out again


@dataclass
class Prose:
    text: str


@dataclass
class WholeFile:
    path: str
    content: str
    raw: str = ""


@dataclass
class SearchReplace:
    path: str
    pairs: list[tuple[str, str]] = field(default_factory=list)
    raw: str = ""


@dataclass
class Command:
    command: str
    raw: str = ""


@dataclass
class Unchanged:
    """A whole file equal to the file as shown: nothing to apply (a model repeating a file, or quoting it)."""

    path: str
    raw: str = ""


@dataclass
class BadBlock:
    """A block that plainly meant to change a file but cannot be applied as written; ``why`` tells the model."""

    why: str
    raw: str
    path: str | None = None
    kind: str = "edit"  # the tool it meant: "edit" (search/replace) or "write" (a whole file)


Segment = Prose | WholeFile | SearchReplace | Command | Unchanged | BadBlock


def lang_of(info: str) -> str:
    word = info.strip().split(maxsplit=1)[0] if info.strip() else ""
    return word.split(":", 1)[0].lower().lstrip("{.")


def clean_path(text: str) -> str | None:
    """``text`` as a file path when it is one (``./`` dropped), else None."""
    text = text.strip().strip("*`'\"").rstrip(":").strip("*`'\"").strip()
    text = text.removeprefix("@").removeprefix("./")  # ``@calc.py``: the attachment form of the user's prompt
    if not text or len(text) > 200 or "://" in text or text.startswith(("-", "$")):
        return None
    if not _PATH.match(text):
        return None
    name = PurePosixPath(text).name
    if "." in name.strip(".") or name in _BARE_NAMES or (name.startswith(".") and len(name) > 1) or "/" in text:
        return text if not text.endswith(".") else None
    return None


def path_in_line(line: str, *, strict: bool) -> str | None:
    """The path a line before a fence names: the whole line (``strict``), or the last word of a short sentence."""
    text = line.strip()
    if not text or len(text) > MAX_PATH_LINE:
        return None
    bare = _LABEL.sub("", text.strip("*_ ")).strip()
    found = clean_path(bare)
    if found is not None or strict:
        return found
    if not text.rstrip("*_ `").endswith(":"):
        return None
    words = text.rstrip(":").replace("`", " ").replace("*", " ").split()
    for word in reversed(words):
        found = clean_path(word.rstrip(",.;"))
        if found is not None:
            return found
    return None


def sentence_path(line: str) -> str | None:
    """The one file a long sentence before a block names, when it ends with a colon and names no other (the 1.5B:
    "To add a test to `test_lists.py` that ..., you can modify the `test_lists.py` file as follows:"); too long
    for :func:`path_in_line`, it went out as prose while it streamed. The reader takes it only for a file in play:
    "... the way pytest collects conftest.py files, which looks like this:" then an error quoted is no file."""
    text = line.strip().rstrip("*_ `")
    if len(text) <= MAX_PATH_LINE or not text.endswith(":"):
        return None
    words = text.rstrip(":").replace("`", " ").replace("*", " ").split()
    found = {path for path in (clean_path(word.rstrip(",.;")) for word in words) if path is not None}
    return found.pop() if len(found) == 1 else None


def path_in_info(info: str) -> str | None:
    """A path written in the fence's info string: ```` ```hello.py ````, ```` ```python hello.py ````, ``python:a.py``."""
    text = info.strip()
    if not text:
        return None
    for candidate in re.split(r"[\s:]+|(?:title|file|path|filename)=", text):
        found = clean_path(candidate.strip("\"'"))
        if found is not None and found.lower() not in _SHELL_LANGS:
            return found
    return None


def is_elided(content: str, original: str | None) -> str | None:
    """The line of a whole-file block that stands for left-out code (``# ... rest of the code``), else None."""
    before = set(original.splitlines()) if original else set()
    for line in content.splitlines():
        if _ELISION.match(line) and line not in before and line.strip() not in {"...", "…"} | _DOCS:
            return line.strip()
    return None


_DOCS = {'"""...', "'''..."}


def command_lines(body: str) -> str | None:
    """The command a langless block holds when every line is a command (``$ `` prompts dropped), else None."""
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    if not lines or len(lines) > 6:
        return None
    out = []
    for line in lines:
        line = line.removeprefix("$ ").strip()
        if line.startswith("#"):
            continue
        word = line.split(maxsplit=1)[0] if line else ""
        if word.startswith("./") or word in _COMMAND_WORDS:
            out.append(line)
        else:
            return None
    return "\n".join(out) or None


def shell_command(body: str) -> str | None:
    """A ``bash`` fence's command: prompts (``$ ``) dropped; output lines after a prompt dropped too."""
    lines = body.splitlines()
    prompted = [line for line in lines if line.lstrip().startswith("$ ")]
    if prompted:
        lines = [line.lstrip()[2:] for line in prompted]
    text = "\n".join(line.rstrip() for line in lines).strip("\n")
    if not any(line.strip() and not line.strip().startswith("#") for line in text.splitlines()):
        return None
    return text


def split_search_replace(lines: list[str]) -> tuple[list[tuple[str, str]], str | None]:
    """The (search, replace) pairs of the marker lines in ``lines``; an error when the markers are broken."""
    pairs: list[tuple[str, str]] = []
    state = "out"
    search: list[str] = []
    replace: list[str] = []
    for line in lines:
        if state == "out":
            if _SEARCH.match(line):
                state, search, replace = "search", [], []
            elif line.strip():
                continue  # prose or a stray line between blocks
        elif state == "search":
            if _DIVIDER.match(line):
                state = "replace"
            elif _SEARCH.match(line):
                search = []  # a doubled marker
            else:
                search.append(line)
        elif state == "replace":
            if _REPLACE.match(line):
                pairs.append((_joined(search), _joined(replace)))
                state = "out"
            elif _SEARCH.match(line):  # the end marker was left out and the next block began
                pairs.append((_joined(search), _joined(replace)))
                state, search, replace = "search", [], []
            else:
                replace.append(line)
    if state == "replace":
        pairs.append((_joined(search), _joined(replace)))  # the block's end is the replace's end
    elif state == "search":
        return pairs, "the SEARCH section has no ======= line after it, so the block has no replacement"
    return pairs, None


def _joined(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def has_markers(lines: list[str]) -> bool:
    """A SEARCH marker makes a block search/replace (a file is never meant to hold one)."""
    return any(_SEARCH.match(line) and "<<<<<<<" in line for line in lines)


class BlockReader:
    """Reads a reply as it streams: ``feed`` returns the segments complete so far, ``finish`` the rest.

    ``files`` maps the paths in play to their current text (None for a file not shown): it resolves a block
    without a path, a path with a bogus directory in front, and a whole file equal to what is on disk. ``asked``
    is the file navtui's latest message asked for by name ("Write the new calc.py now"): a block without a path
    that may be that file's new version is taken as it.
    """

    def __init__(
        self,
        files: Mapping[str, str | None],
        *,
        asked: str | None = None,
        parts: Mapping[str, Sequence[Sequence[str]]] | None = None,
    ) -> None:
        self.files = dict(files)
        self.parts = dict(parts or {})  # a file shown only in part: the runs of its lines that were shown
        self.asked = asked if asked in self.files and self.files[asked] is not None else None
        self._partial = ""  # an unfinished line
        self._held: list[str] = []  # complete lines outside a block that may still turn out to name a path
        self._fence: str | None = None  # the open fence's marker while inside a fenced block
        self._info = ""
        self._indent = ""  # the open fence's indentation (a fence in a list item: "2. Add this:\n   ```python")
        self._before: list[str] = []  # the held lines before the open block
        self._body: list[str] = []
        self._raw_markers = False  # inside a search/replace block written without a fence
        self._shown = ""  # the start of the current line, streamed out as prose before the line ended
        self._last_prose = ""  # the last whole line that went out as prose (too long to hold as a path line)
        self._sentence = ""  # that line, when only blank lines came between it and the open block's fence
        self.blocks = 0  # blocks that became edits or commands

    # ------------------------------------------------------------------ streaming
    def feed(self, text: str) -> list[Segment]:
        self._partial += text
        *lines, self._partial = self._partial.split("\n")
        out: list[Segment] = []
        for line in lines:
            out.extend(self._line(line))
        if self._fence is None and not self._raw_markers and self._partial and not self._could_start(self._partial):
            # An unfinished line that can be nothing but prose goes out now (the answer streams).
            out.extend(self._release())
            out.append(Prose(self._partial))
            self._partial_shown = True
            self._shown += self._partial
            self._partial = ""
        return _merged(out)

    def finish(self, *, cut_off: bool = False) -> list[Segment]:
        """The rest. ``cut_off``: the reply stopped at the output limit, so an open block is incomplete."""
        out: list[Segment] = []
        if self._partial:
            out.extend(self._line(self._partial, last=True))
            self._partial = ""
        if self._fence is not None or self._raw_markers:
            raw = "\n".join([*self._before, self._fence_line(), *self._body])
            if cut_off:
                path = self._path()
                why = "the reply was cut off at the output limit in the middle of this block"
                out.append(BadBlock(why, raw, path, kind="edit" if has_markers(self._body) else "write"))
                self.blocks += 1
            else:
                out.extend(self._close_block())  # a missing closing fence at the very end
            self._fence = None
            self._raw_markers = False
        out.extend(self._release())
        return _merged(out)

    _partial_shown = False

    def _could_start(self, partial: str) -> bool:
        """An unfinished line that may still become a path, a fence or a marker: held until it ends."""
        stripped = partial.strip()
        if not stripped:
            return True
        if stripped[0] in "`~<=>#*/-;" or len(stripped) <= MAX_PATH_LINE and " " not in stripped.strip("*` "):
            return True
        return len(stripped) <= MAX_PATH_LINE and stripped.rstrip("*` ").endswith(":")

    def _line(self, line: str, *, last: bool = False) -> list[Segment]:
        if self._partial_shown:
            # The start of this line already went out as prose: the rest is prose too.
            self._partial_shown = False
            self._last_prose, self._shown = self._shown + line, ""
            return [Prose(line + ("" if last else "\n"))]
        if self._fence is not None:
            if line.strip() == self._fence or (
                line.strip().startswith(self._fence[0] * 3) and line.strip().strip(self._fence[0]) == ""
            ):
                out = self._close_block()
                self._fence = None
                return out
            self._body.append(line)
            return []
        if self._raw_markers:
            self._body.append(line)
            if _REPLACE.match(line):
                out = self._close_block()
                self._raw_markers = False
                return out
            return []
        fence = _FENCE.match(line)
        if fence is not None:
            self._sentence = "" if any(held.strip() for held in self._held) else self._last_prose
            self._last_prose = ""
            self._fence = fence.group("fence")
            self._indent = fence.group("indent")
            self._info = fence.group("info").strip()
            self._before, self._held = self._held, []
            self._body = []
            return []
        if _SEARCH.match(line):
            self._raw_markers = True
            self._fence = None
            self._info = ""
            self._before, self._held = self._held, []
            self._body = [line]
            return []
        if line.strip() and path_in_line(line, strict=False) is None and not _COMMENT_PATH.match(line):
            self._last_prose = line
            return [*self._release(), Prose(line + ("" if last else "\n"))]
        self._held.append(line + ("" if last else "\n"))
        if len(self._held) > 2:
            return [Prose(self._held.pop(0))]
        return []

    def _release(self) -> list[Segment]:
        held, self._held = self._held, []
        return [Prose("".join(held))] if held else []

    def _fence_line(self) -> str:
        return f"{self._fence}{self._info}" if self._fence is not None else ""

    # ------------------------------------------------------------------ one block
    def _path(self) -> str | None:
        """The path the block names: info string, else the line before (blank lines skipped)."""
        found = path_in_info(self._info) if self._fence is not None else None
        if found is None:
            for line in reversed(self._before):
                if line.strip():
                    found = path_in_line(line, strict=False)
                    break
        return self._known(found) if found else None

    def _known(self, path: str) -> str:
        """A path as the files in play spell it: ``path/to/calc.py`` for ``calc.py`` when only that one matches, and
        ``a/config.py`` for ``a/./config.py`` or ``b/../a/config.py`` (another spelling skipped every check the
        reader makes of a file in play: shown in part, much shorter than a long file, the elisions)."""
        if path in self.files:
            return path
        normal = posixpath.normpath(path)
        if normal in self.files:
            return normal
        name = PurePosixPath(path).name
        matches = [known for known in self.files if PurePosixPath(known).name == name]
        return matches[0] if len(matches) == 1 else path

    def _close_block(self) -> list[Segment]:
        before = "".join(self._before)
        fenced = self._fence is not None
        raw = "\n".join([self._fence_line(), *self._body, self._fence or ""]) if fenced else "\n".join(self._body)
        raw_with_path = before + raw
        lang = lang_of(self._info) if fenced else ""
        path_from_info = path_in_info(self._info) if fenced else None
        body = _outdented(self._body, self._indent) if fenced else list(self._body)
        text = "\n".join(body)
        prose_path = None
        for line in reversed(self._before):
            if line.strip():
                prose_path = path_in_line(line, strict=lang in _SHELL_LANGS)
                break
        # The line before the block when it streamed out as prose (a sentence is released as it streams; held, it
        # would be in ``_before``): read as it would be whole, so streaming and a whole reply agree. Streamed, the
        # 1.5B's "2. Open the `timeparse.py` file ... add the following content:" lost its path, the block was
        # guessed as a quote and the next one, main.py's import lines, became timeparse.py (eval move_function).
        sentence = "" if any(line.strip() for line in self._before) else self._sentence.strip()
        short = bool(sentence) and len(sentence) <= MAX_PATH_LINE
        lead = [sentence] if short else self._before  # the lines before the block, as a whole reply holds them
        if prose_path is None and short:
            prose_path = path_in_line(sentence, strict=lang in _SHELL_LANGS)
        elif prose_path is None and sentence:
            named = sentence_path(sentence)  # "..., you can modify the `test_lists.py` file as follows:"
            if named is not None and self._known(named) in self.files:
                prose_path = named  # only a file in play: a sentence that names another explains, quoting output
        path = path_from_info or prose_path
        loose = path_from_info is None and not any(
            line.strip() and path_in_line(line, strict=True) for line in lead[-2:]
        )  # the path came from a sentence ("Here is calc.py:"), not from a line of its own
        if (path is None or loose) and body and fenced:
            # The block's own first line ("# main.py") names it better than a sentence does: "Update the imports
            # in `main.py` to import parse_duration from `timeparse.py`:" gave timeparse.py, the last file named,
            # and main.py's new imports were then taken for an example of timeparse's use (eval move_function).
            comment = _COMMENT_PATH.match(body[0])
            if comment is not None and clean_path(comment.group("path")) is not None:
                path = clean_path(comment.group("path"))
                loose = False
                if not has_markers(body):
                    body = body[1:]  # the ``# hello.py`` line names the file; it is not part of it
        if path is not None:
            path = self._known(path)
        label = self._path_label(body) if fenced and path is None and lang not in _SHELL_LANGS else None
        if label is not None:
            # "```\nshop/prices.py\n```" then the file's block: the 1.5B's way of writing the path line. Held
            # like a path line; at the end of the reply it goes out as text.
            self._held = [label + "\n"]
            return []
        if has_markers(body) or not fenced:
            return self._search_replace(path, body, raw_with_path)
        if lang in _SHELL_LANGS and (path is None or path == prose_path and not _is_script(path)):
            command = shell_command(text)
            if command is None:
                return [Prose(raw_with_path + "\n")]
            self.blocks += 1
            return [Command(command, raw=raw_with_path)]
        if path is None and not lang:
            command = command_lines(text)
            if command is not None:
                self.blocks += 1
                return [Command(command, raw=raw_with_path)]
        content = _joined(body)
        if (path is None or loose) and _announces_output(lead):
            # "The output should be:" then "Big Job 180 done": what the program prints, not a file. Guessed as the
            # one new file in play, it replaced the module the 1.5B had just written (eval move_function).
            return [Prose(raw_with_path + "\n")]
        if path is None:
            path = self._guess_file(content)
            if path is None:
                return [Prose(raw_with_path + "\n")]
            loose = True
            known = self.files.get(path) or ""
            if len(content.splitlines()) < 0.6 * len(known.splitlines()):
                return [Prose(raw_with_path + "\n")]  # no path and much shorter than the file: a quote from it
        if loose and (_program_output(content) or _imports_itself(path, content)):
            # "When I run main.py I get:" then its traceback, "Example usage of calc.py:" then code that imports
            # calc: the sentence names the file the block is about, and main.py (2 lines, shorter than the block,
            # so no quote of it) was written over with the output, calc.py with a module that imports itself.
            return [Prose(raw_with_path + "\n")]
        original = self.files.get(path)
        if loose and original and (_snippet_of(content, original) or _instruction(lead)):
            return [Prose(raw_with_path + "\n")]  # a quote from the file (an explanation), not a new version of it
        elided = is_elided(content, original) if original else None
        if elided is None and original and _fragment_of(content, original):
            elided = content.lstrip("\n").splitlines()[0].strip()
        self.blocks += 1
        if elided is not None:
            why = (
                f"the block for {path} leaves part of the file out ({elided!r}), so writing it would delete that "
                "code. Send the whole file, or change only the lines that differ with a SEARCH/REPLACE block."
            )
            return [BadBlock(why, raw_with_path, path, kind="write")]
        whole = (original or "").splitlines()
        in_part = path in self.files and original is None  # in play as the lines that matter of a long file
        if in_part or len(whole) >= LONG_FILE_LINES and _snippet_of(content, original or ""):
            # Shown four of config.py's 300 lines (or the first lines of a 300-line file shown whole), the 1.5B
            # sent them back with TIMEOUT changed as the whole file: written, they replaced its 300 lines, and
            # refused, it gave up (the eval's edit_big). The lines it changed are an edit of what it was shown.
            shown_part = self.parts.get(path, ()) if in_part else [whole]
            pairs = part_edit(content, shown_part)
            if pairs:
                return [SearchReplace(path, pairs, raw=raw_with_path)]
            if pairs is not None:
                self.blocks -= 1
                return [Unchanged(path, raw=raw_with_path)]
            if in_part:
                why = f"{path} was shown to you only in part, so a block of the whole file would delete the lines"
                why += " you have not seen."
            else:
                kept = len(content.splitlines())
                why = f"the block for {path} has {kept} lines where the file has {len(whole)}, so writing it would"
                why += " delete the rest."
            why += " " + search_replace_howto(path, content, shown_part)
            return [BadBlock(why, raw_with_path, path, kind="write")]
        if original is not None and original == content:
            self.blocks -= 1  # the file already reads so: nothing to do
            return [Prose(raw_with_path + "\n")] if loose else [Unchanged(path, raw=raw_with_path)]
        return [WholeFile(path, content, raw=raw_with_path)]

    def _path_label(self, body: list[str]) -> str | None:
        """The path a fence holds when all it holds is the path of a file in play with content (not the one new
        file navtui asked for by name, which a one-line path may well be the content of)."""
        lines = [line.strip() for line in body if line.strip()]
        if len(lines) != 1 or path_in_line(lines[0], strict=True) is None:
            return None
        path = self._known(lines[0].strip("`*"))
        if not self.files.get(path) or (self.asked is not None and self.asked != path):
            return None
        return path

    def _search_replace(self, path: str | None, body: list[str], raw: str) -> list[Segment]:
        pairs, error = split_search_replace(body)
        self.blocks += 1
        if path is None:
            known = [p for p in self.files]
            if len(known) == 1:
                path = known[0]
            else:
                found = self._file_with(pairs)
                if found is None:
                    why = "the SEARCH/REPLACE block names no file: write the file's path on the line before it"
                    return [BadBlock(why, raw)]
                path = found
        if error is not None:
            return [BadBlock(f"in the block for {path}, {error}", raw, path)]
        if not pairs:
            return [BadBlock(f"the block for {path} has no SEARCH/REPLACE section", raw, path)]
        return [SearchReplace(path, pairs, raw=raw)]

    def _file_with(self, pairs: list[tuple[str, str]]) -> str | None:
        """The one file in play whose text holds every search section."""
        holders = [
            path for path, text in self.files.items() if text is not None and all(s.strip() in text for s, _ in pairs)
        ]
        return holders[0] if len(holders) == 1 else None

    def _guess_file(self, content: str) -> str | None:
        """A block without a path: the one file in play, or the file it plainly is (most of its text in common)."""
        shown = {path: text for path, text in self.files.items() if text is not None}
        scores = sorted(((_likeness(content, text), path) for path, text in shown.items()), reverse=True)
        if not scores:
            return None
        best, path = scores[0]
        if self.asked is not None:
            # Told "write the new shop/prices.py now", the 1.5B sent a bare fence holding it (two lines: too short
            # to tell from the other files by likeness alone).
            wanted = shown[self.asked]
            if not wanted.strip() or _likeness(content, wanted) >= 0.3:
                return self.asked
        keeping = [known for known, text in shown.items() if text.strip() and _keeps_every_line(content, text)]
        if len(keeping) == 1 and content.strip() != shown[keeping[0]].strip():
            return keeping[0]  # every line of that file, in order, and more: its new version (.gitignore + 2 lines)
        runner_up = scores[1][0] if len(scores) > 1 else 0.0
        empty = [known for known, text in shown.items() if not text.strip()]
        if len(empty) == 1 and best < 0.5:
            return empty[0]  # the one new (or empty) file the request names
        if len(shown) == 1:
            return path if best >= 0.5 or not shown[path].strip() else None
        long_enough = shown[path].count("\n") >= 5  # two- and three-line files look alike: no guessing among them
        return path if long_enough and best >= 0.7 and best - runner_up >= 0.2 else None


def shown_parts(note: str) -> list[list[str]]:
    """The runs of consecutive lines an excerpt shows (``151: TIMEOUT = 30``; a gap starts a run), unnumbered."""
    parts: list[list[str]] = []
    previous = -1
    for line in note.splitlines():
        match = _NUMBERED_LINE.match(line)
        if match is None:
            previous = -1
            continue
        number = int(match.group(1))
        if number != previous + 1 or not parts:
            parts.append([])
        parts[-1].append(match.group(2))
        previous = number
    return parts


def part_edit(content: str, parts: Sequence[Sequence[str]]) -> list[tuple[str, str]] | None:
    """The SEARCH/REPLACE pairs a block means that sends back some of the lines shown of a long file, changed.

    ``parts`` are the runs of consecutive file lines that were shown. Lines of them the block does not send back
    (before, between or after what it sends) are kept: they were left out, not deleted; so are blank
    lines, which a small model drops as often as it copies them. Each run a change falls in gives one pair, the
    changed lines with a little unchanged context as they were shown. An empty list: the block changes nothing;
    None: it does not follow the shown lines (no line in common, a change running from one shown run into the
    next, more changed than kept)."""
    sent = content.splitlines()
    if sent and all(_NUMBERED_LINE.match(line) for line in sent if line.strip()):
        sent = [_NUMBERED_LINE.sub(r"\2", line) for line in sent]  # the excerpt's numbers copied along
    sent = [line for line in sent if line.strip() and line.strip() not in ("...", "…")]  # "...": an excerpt's gap
    shown = [line for part in parts for line in part]
    run = [number for number, part in enumerate(parts) for _ in part]  # the run of each shown line
    at = [i for i, line in enumerate(shown) if line.strip()]  # where each non-blank shown line is
    if not at or not sent:
        return None
    ops: list[tuple[str, int, int, int, int]] = list(
        difflib.SequenceMatcher(None, [shown[i] for i in at], sent, autojunk=False).get_opcodes()
    )

    def alike(k: int, j1: int, j2: int) -> bool:
        """The lines sent[j1:j2] are the shown lines from the k-th non-blank one, changed: each begins with the
        same name ("TIMEOUT = 45" for "TIMEOUT = 30"); else they are new lines ("NEW_OPTION = 1")."""
        return all(_lead(shown[at[k + n]]) == _lead(sent[j]) != "" for n, j in enumerate(range(j1, j2)))

    if ops and ops[-1][0] == "replace" and ops[-1][2] - ops[-1][1] > ops[-1][4] - ops[-1][3]:
        # The last lines sent differ, and fewer were sent than shown after the last line in common: they change
        # the lines right after it, and the rest was not sent ("TIMEOUT = 45" where 30 was, then nothing more);
        # or, unlike those lines, they are added after it (OPTION_005 was put out for a new setting).
        _, k1, k2, j1, j2 = ops.pop()
        if alike(k1, j1, j2):
            ops += [("replace", k1, k1 + j2 - j1, j1, j2), ("delete", k1 + j2 - j1, k2, j2, j2)]
        else:
            ops += [("insert", k1, k1, j1, j2), ("delete", k1, k2, j2, j2)]
    if ops and ops[0][0] == "replace" and ops[0][2] - ops[0][1] > ops[0][4] - ops[0][3]:
        _, k1, k2, j1, j2 = ops.pop(0)  # likewise before the first line in common
        if alike(k2 - (j2 - j1), j1, j2):
            ops[:0] = [("delete", k1, k2 - (j2 - j1), j1, j1), ("replace", k2 - (j2 - j1), k2, j1, j2)]
        else:
            ops[:0] = [("delete", k1, k2, j1, j1), ("insert_before", k2, k2, j1, j2)]
    kept = sum(k2 - k1 for tag, k1, k2, _, _ in ops if tag == "equal")
    if not kept:
        return None  # nothing in common: another text, not the shown lines changed

    def whole_runs(k1: int, k2: int) -> bool:
        return (k1 == 0 or run[at[k1 - 1]] != run[at[k1]]) and (k2 == len(at) or run[at[k2]] != run[at[k2 - 1]])

    changes: dict[int, list[tuple[int, int, int, int]]] = {}  # run -> its changes (shown i1:i2, sent j1:j2)
    changed = 0
    omitted = False  # lines left out inside a run: kept too (a slip in copying deleted ten of config.py's lines)
    for tag, k1, k2, j1, j2 in ops:
        if tag == "delete":
            omitted = omitted or not (k1 == 0 or k2 == len(at) or whole_runs(k1, k2))
        if tag in ("equal", "delete"):
            continue  # not sent back: kept
        if k1 < k2:
            i1, i2 = at[k1], at[k2 - 1] + 1
            if run[i1] != run[i2 - 1]:
                return None
        elif tag == "insert_before":  # lines added before the first line in common: in its run, right before it
            i1 = i2 = at[k1]
        else:  # lines added: after the shown line before them
            i1 = i2 = at[k1 - 1] + 1 if k1 else at[0]
        after = k1 == k2 and k1 and tag != "insert_before"
        changes.setdefault(run[i1 - 1] if after else run[i1], []).append((i1, i2, j1, j2))
        changed += max(k2 - k1, j2 - j1)
    if changed > kept or omitted and not changes:
        return None  # (lines left out and nothing else: a deletion cannot be told from a slip)
    pairs: list[tuple[str, str]] = []
    for number, found in sorted(changes.items()):
        start = run.index(number)
        end = start + len(parts[number])
        lo = max(start, min(i1 for i1, _, _, _ in found) - PART_CONTEXT)
        hi = min(end, max(i2 for _, i2, _, _ in found) + PART_CONTEXT)
        new: list[str] = []
        done = lo
        for i1, i2, j1, j2 in found:
            new.extend(shown[done:i1])
            new.extend(sent[j1:j2])
            done = i2
        new.extend(shown[done:hi])
        pairs.append((_joined(shown[lo:hi]), _joined(new)))
    return pairs


def _lead(line: str) -> str:
    """A line's first two words or signs ("TIMEOUT =", "import re", "def add"): what a changed line keeps. One
    word was too little: "import sys" added after a long file's first imports replaced its "import re"."""
    return " ".join(re.findall(r"[\w.$@-]+|[^\s\w]", line)[:2])


def search_replace_howto(path: str, content: str, parts: Sequence[Sequence[str]]) -> str:
    """How to send the change as a SEARCH/REPLACE block, with a block made of the first line the refused block
    changed and the shown line most like it, when there is one: something a small model can copy."""
    how = (
        "Change only the lines that differ with a SEARCH/REPLACE block: the path on its own line, then a fence "
        "holding <<<<<<< SEARCH, the lines to change copied exactly as shown (without line numbers), =======, the "
        "same lines changed, >>>>>>> REPLACE."
    )
    shown = [line for part in parts for line in part]
    for line in content.splitlines():
        line = _NUMBERED_LINE.sub(r"\2", line)
        if not line.strip() or line in shown:
            continue
        close = difflib.get_close_matches(line, [s for s in shown if s.strip()], n=1, cutoff=0.6)
        if close:
            block = f"{path}\n```\n<<<<<<< SEARCH\n{close[0]}\n=======\n{line}\n>>>>>>> REPLACE\n```"
            return f"{how} For the line you changed:\n\n{block}"
        break
    return how


def _outdented(body: list[str], indent: str) -> list[str]:
    """The lines of a fence indented like a list item's, with that indentation taken off every line, as Markdown
    reads them; as they are unless every line with text has it (the 1.5B's "2. Add the following content:" then a
    three-space fence, each line indented three more: written as it came, the module did not even import)."""
    if not indent or not all(line.startswith(indent) for line in body if line.strip()):
        return list(body)
    return [line[len(indent) :] if line.strip() else line.lstrip(" \t") for line in body]


def _likeness(new: str, old: str) -> float:
    if not old.strip() or len(old) > 20_000 or len(new) > 20_000:
        return 0.0
    return difflib.SequenceMatcher(None, old, new, autojunk=False).ratio()


def _keeps_every_line(content: str, original: str) -> bool:
    """Whether ``content`` holds each non-blank line of ``original``, in the same order."""
    lines = iter(line.rstrip() for line in content.splitlines())
    return all(
        any(line == wanted for line in lines) for wanted in (o.rstrip() for o in original.splitlines() if o.strip())
    )


def _snippet_of(content: str, original: str) -> bool:
    """A block much shorter than the file: a quote from it rather than the file."""
    return len(content.splitlines()) < 0.6 * len(original.splitlines())


def _fragment_of(content: str, original: str) -> bool:
    """A block that starts indented where the file does not, and is much shorter: a piece cut out of the file."""
    first = next((line for line in content.splitlines() if line.strip()), "")
    start = next((line for line in original.splitlines() if line.strip()), "")
    return first[:1].isspace() and not start[:1].isspace() and _snippet_of(content, original)


_OUTPUT_START = re.compile(
    r"Traceback \(most recent call last\):"  # Python's traceback
    r"|File \"[^\"]+\", line \d+"  # the frames of one, cut from its header
    r"|\$ \S"  # a shell prompt and the command run
    r"|(?:[A-Za-z_][\w.]*)?(?:Error|Exception)(?::\s|$)"  # "IndexError: list index out of range"
    r"|=+ (?:test session starts|FAILURES|ERRORS|short test summary info) =+$"  # pytest's report
)


def _program_output(content: str) -> bool:
    """The block is what a program printed (a traceback, a shell session, a test report), not a file's text."""
    first = next((line.strip() for line in content.splitlines() if line.strip()), "")
    return _OUTPUT_START.match(first) is not None


def _imports_itself(path: str, content: str) -> bool:
    """The block imports the module at ``path`` (``from calc import add`` for calc.py, ``require('./calc')`` for
    calc.js): an example of its use, since no module imports itself."""
    name = PurePosixPath(path)
    stem = re.escape(name.stem)
    if name.suffix == ".py":
        pattern = rf"^\s*(?:from\s+(?:[\w.]*\.)?{stem}\s+import\b|import\s+(?:[\w.]*\.)?{stem}\b)"
    elif name.suffix in (".js", ".mjs", ".cjs", ".ts", ".jsx", ".tsx"):
        pattern = rf"""(?:require\(\s*|\bfrom\s+|^\s*import\s+)['"]\./(?:[\w./-]*/)?{stem}(?:\.[cm]?[jt]sx?)?['"]"""  # not './App.css
    else:
        return False
    return re.search(pattern, content, re.MULTILINE) is not None


_OUTPUT_LEAD = re.compile(
    r"(?:\boutput\s+(?:should|will|would|must)\s+(?:be|look|read)|\bexpected\s+output|\boutput\s+is"
    r"|\b(?:should|will|would)\s+(?:now\s+)?(?:print|output|display)|\byou\s+(?:should|will)\s+see"
    r"|\b(?:it|this|which)\s+(?:now\s+)?(?:prints|outputs|displays)|^\s*(?:output|result)s?)\b[^\n]*:\s*$",
    re.IGNORECASE,
)


def _announces_output(before: list[str]) -> bool:
    """The sentence before the block says what a program prints ("The output should be:", "It prints:")."""
    last = next((line for line in reversed(before) if line.strip()), "")
    return _OUTPUT_LEAD.search(last) is not None


def _instruction(before: list[str]) -> bool:
    """The sentence before the block tells the user what to do ("... replace the line:"): the block is a part."""
    last = next((line for line in reversed(before) if line.strip()), "")
    return bool(re.search(r"\b(?:replace|change|modify|find|locate|look for)\b", last, re.IGNORECASE))


def _is_script(path: str) -> bool:
    return path.endswith((".sh", ".bash", ".zsh")) or "." not in PurePosixPath(path).name


def _merged(segments: list[Segment]) -> list[Segment]:
    out: list[Segment] = []
    for segment in segments:
        if isinstance(segment, Prose):
            if not segment.text:
                continue
            if out and isinstance(out[-1], Prose):
                out[-1] = Prose(out[-1].text + segment.text)
                continue
        out.append(segment)
    return out


def parse_reply(
    text: str,
    files: Mapping[str, str | None],
    *,
    cut_off: bool = False,
    parts: Mapping[str, Sequence[Sequence[str]]] | None = None,
) -> list[Segment]:
    """Every segment of a whole reply (the streaming reader fed at once)."""
    reader = BlockReader(files, parts=parts)
    return _merged([*reader.feed(text), *reader.finish(cut_off=cut_off)])
