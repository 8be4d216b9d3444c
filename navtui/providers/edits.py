"""The edit-block protocol (``providers.tool_protocol: edits``): files in the prompt, Markdown blocks back.

A small model does best at what it was trained on: it sees the files whole and answers with the new file (or a
search/replace block) in a fenced block, and with commands in a ``bash`` fence. No call has to be formed and no
file read first. This wrapper turns that into tool calls of the existing tools, so the blocks go through the same
path as any call (approval, sandbox, cards, diffs, checkpoints, ``--json``):

- the request: a short system prompt of its own (the environment and the project's instructions kept), the
  files in play (``ChatRequest.files``, chosen by ``agent/files_in_play.py``) shown whole before the newest user
  text, history written back as the blocks the model would have written, tool results as plain user text;
- the reply: read by ``editblocks.BlockReader`` as it streams. A whole file becomes ``write``, search/replace
  ``edit`` (its whitespace-tolerant matching included), a command ``shell``; a block that cannot be applied
  becomes a call whose result says why. Prose streams as the answer. A reply without a block ends the turn.
"""

from __future__ import annotations

import contextlib
import posixpath
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from navtui.core.events import ErrorEvent, ProviderEvent, StopEvent, TextDelta, ToolCallEvent
from navtui.core.messages import (
    AssistantMessage,
    TextBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    ask_to_write,
    asked_to_write,
    is_nudge,
)
from navtui.providers.base import PARSE_ERROR_KEY, RAW_CALL_KEY, AnyMessage, ChatRequest, FileInPlay, ProviderStream
from navtui.providers.editblocks import (
    LONG_FILE_LINES,
    BadBlock,
    BlockReader,
    Command,
    Prose,
    SearchReplace,
    Segment,
    Unchanged,
    WholeFile,
    shown_parts,
)
from navtui.providers.textprovider import assistant_as_text
from navtui.providers.toolargs import error_arguments
from navtui.providers.wrapped import WrappedProvider

# The instructions quote no placeholder: told never to write "rest unchanged", the 1.5B answered "delete
# debug.log" with a debug.log holding exactly that line.
INSTRUCTIONS = """\
You are navtui, a coding assistant working in the user's repository. The files that matter for the request \
are shown in full: each one is its path on a line of its own, then its content in a fenced block.

To change or create a file, reply in the same form: the file's path on a line of its own, then a fenced block \
with the complete new content of the file, every line of it.
To change a few lines of a long file, write its path on a line of its own, then a fenced block holding: a line \
<<<<<<< SEARCH, the lines to change copied exactly from the file, a line =======, the new lines, and a line \
>>>>>>> REPLACE.
To run a command (a script, the tests, ls, grep, rm), write it in a ```bash block.

navtui saves your files and runs your commands, then tells you what happened. Code elsewhere in your reply \
changes nothing. Answer questions in plain words. When the task is done, say so in a sentence, with no block."""

# Seen: Qwen2.5-Coder 1.5B described the fix ("change the add function...") and ran the test, three times over.
NO_FILE_CHANGED = (
    "Your reply changed no file: describing a change does not make it. To change a file, write its path on a line "
    "of its own, then its whole new content in a fenced block."
)
# Seen: asked again with that reminder, the 1.5B repeated its description word for word (temperature 0). Naming
# the file it described, and the very first line to write, got the file.
NAME_THE_FILE = "Your reply changed no file: describing a change does not make it. {ask}."
# Seen: the claim "debug.log has been deleted" questioned, the 1.5B answered "To delete the file debug.log, run rm
# debug.log in a bash block.": the note's words, not the block. The block itself, ready to copy:
DELETED_NOTHING = "Your reply deleted nothing"
DELETE_IT = DELETED_NOTHING + ": saying a file is deleted does not delete it. Send this block now:\n\n{block}"
# Seen (eval big_repo): "To fix the late_fee function in services/billing.py, change the line `return ... '0.05' *
# weeks` to `return ... '0.02' * weeks`.": the fix, exactly, in words. Told how to write a whole file (one it was
# shown only in part), the 1.5B copied out the test instead. The block it described, ready to send:
DESCRIBED = "Your reply changed no file: describing a change does not make it. Send the change you describe as this block:\n\n{block}"
ALREADY_SO = "already has exactly this content"  # a whole file sent that equals the file on disk
RESULTS_END = "If the task is done, say so in one sentence with no block; otherwise send the blocks that finish it."


def render_files(files: Sequence[FileInPlay]) -> str:
    """The files in play as the model sees them: the path on a line, the text in a fence."""
    parts: list[str] = []
    for file in files:
        if file.text is None or (not file.text and file.note):
            # An excerpt's lines go after the note's first line, not inside its parentheses: the 1.5B copied the
            # closing one as part of the last line shown ("OPTION_001 = 7  # option 1)", eval edit_big).
            header, _, excerpt = (file.note or "not shown").partition("\n")
            parts.append(f"{file.path}\n({header.rstrip(':')}):\n{excerpt}" if excerpt else f"{file.path}\n({header})")
            continue
        fence = _fence_for(file.text)
        body = file.text if file.text.endswith("\n") or not file.text else file.text + "\n"
        lines = file.text.count("\n") + (0 if file.text.endswith("\n") else 1)
        note = f"({lines} lines: change it with SEARCH/REPLACE blocks)\n" if lines >= LONG_FILE_LINES else ""
        parts.append(f"{file.path}\n{note}{fence}\n{body}{fence}")
    return "\n\n".join(parts)


def _fence_for(text: str) -> str:
    longest = 0
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            longest = max(longest, len(stripped) - len(stripped.lstrip("`")))
    return "`" * max(3, longest + 1)


def render_call(call: ToolCall) -> str:
    """A call written back as the block the model would have written."""
    args = call.arguments
    raw = args.get(RAW_CALL_KEY)
    if PARSE_ERROR_KEY in args and isinstance(raw, str):
        return raw
    path = args.get("path")
    if call.name == "write" and isinstance(path, str) and isinstance(args.get("content"), str):
        content = args["content"]
        fence = _fence_for(content)
        return f"{path}\n{fence}\n{content if content.endswith(chr(10)) else content + chr(10)}{fence}"
    if call.name == "edit" and isinstance(path, str):
        pairs = _edit_pairs(args)
        sections = []
        for old, new in pairs:
            sections.append(f"<<<<<<< SEARCH\n{_line_end(old)}=======\n{_line_end(new)}>>>>>>> REPLACE")
        return f"{path}\n```\n" + "\n".join(sections) + "\n```"
    if call.name == "shell" and isinstance(args.get("command"), str):
        return f"```bash\n{args['command'].rstrip()}\n```"
    return f"[{call.name} {args}]"


def _line_end(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def _edit_pairs(args: dict[str, Any]) -> list[tuple[str, str]]:
    items = args.get("edits")
    if isinstance(items, list):
        return [(str(i.get("old_text") or ""), str(i.get("new_text") or "")) for i in items if isinstance(i, dict)]
    return [(str(args.get("old_text") or ""), str(args.get("new_text") or ""))]


def render_assistant(message: AssistantMessage) -> AssistantMessage:
    """Prose and blocks in the order written."""
    return assistant_as_text(message, render_call)


def render_result(call: ToolCall | None, result: ToolResultMessage) -> str:
    """What happened to one block, in a line or two (the files themselves are shown afresh anyway)."""
    text = result.text.strip()
    name = call.name if call is not None else result.tool_name
    args = call.arguments if call is not None else {}
    if name == "shell":
        command = str(args.get("command", "")).strip()
        head = f"$ {command}" if "\n" not in command else f"$ {command.splitlines()[0]} ..."
        return f"{head}\n{text}"
    path = args.get("path") or ""
    if name in ("write", "edit"):
        if result.is_error:
            hint = " Send a corrected block, or the whole file." if name == "edit" else ""
            return f"{path}: not changed. {in_block_terms(text)}{hint}"
        if not text:
            return f"{path}: done"
        first, *rest = text.splitlines()
        # The diff and the counts are in the file shown afresh; a name the change took from other files is not.
        return "\n".join([first, *(line for line in rest if _DROPPED.match(line))])
    return f"{name}: {text}"


_DROPPED = re.compile(  # tools/files/dropped.py
    r"Note: \S+ (?:no longer defines |imports .* (?:then defines its own|which does not define))"
)

# The tools' messages speak of tool calls; the model of this protocol writes blocks.
_IN_BLOCK_TERMS = (
    ("To create a new file use write.", "To create a new file, send its path and its whole content."),
    ("; to create or overwrite a file use write.", "; to create a file, send its path and its whole content."),
    ("re-read the file to see its current content.", "the file's current text is shown above."),
    ("Copy old_text exactly from the current file, without the line-number prefix.",
     "Copy the SEARCH lines exactly from the file, without line numbers."),
    (", or set replace_all to true to change every occurrence.", "."),
    ("Re-read it first with read, then make your change against the current content.",
     "Its current text is shown above: make your change against it."),
    ("Read it first, or use edit to change part of it.",
     "It was not shown to you whole: change it with a SEARCH/REPLACE block."),
    ("change it with shell", "change it with a command"),
    ("old_text", "the SEARCH text"),
    ("new_text", "the REPLACE text"),
)  # fmt: skip


def in_block_terms(text: str) -> str:
    for tool_words, block_words in _IN_BLOCK_TERMS:
        text = text.replace(tool_words, block_words)
    return text


def to_edit_messages(messages: Sequence[AnyMessage], files: Sequence[FileInPlay]) -> list[AnyMessage]:
    """History as plain chat: blocks for calls, results as user text; the files shown before the newest user text."""
    out: list[AnyMessage] = []
    calls: dict[str, ToolCall] = {}
    # Their attachments are left out: a file shown whole is there afresh; one too long for the room is shown as
    # the lines that matter, and its whole copy is what did not fit (files_in_play.py counted the room without it).
    shown = {file.path for file in files}
    pending: list[str] = []  # results of one reply, sent as one user message
    failed = False  # one of them is an error
    wrote = True  # the latest reply had a file block: no reminder of how to write one
    said = ""  # the prose of the latest reply
    for index, message in enumerate(messages):
        if isinstance(message, ToolResultMessage):
            pending.append(render_result(calls.get(message.tool_call_id), message))
            failed = failed or message.is_error
            continue
        if pending:
            _append_user(out, _results_text(pending, _reminder(wrote or not failed, said, files)))
            pending, failed = [], False
        if isinstance(message, AssistantMessage):
            calls.update({call.id: call for call in message.tool_calls})
            wrote = any(call.name in ("write", "edit") for call in message.tool_calls)
            said = message.text
            if not message.tool_calls and _nudged(messages, index + 1):
                continue  # words only, and navtui asked again: shown them, a small model says them again
            out.append(render_assistant(message))
        elif isinstance(message.content, str):
            text = _without_shown_attachments(message.content, shown)
            if not wrote and is_nudge(message.content) and "fenced block" not in message.content:
                # e.g. the check failed after a reply that changed nothing (a nudge that says how needs no more)
                text = f"{text}\n\n{_reminder(False, said, files)}"
            _append_user(out, text)
            wrote = True
        else:
            out.append(message)
    if pending:
        _append_user(out, _results_text(pending, _reminder(wrote or not failed, said, files)))
    if files:
        section = "Files:\n\n" + render_files(files)
        last = max((i for i, m in enumerate(out) if isinstance(m, UserMessage)), default=None)
        if last is None:
            out.append(UserMessage(content=section))
        else:
            message = out[last]
            text = message.content if isinstance(message.content, str) else message.text
            out[last] = UserMessage(content=f"{section}\n\n{text}")
    return out


def asked_path(messages: Sequence[AnyMessage]) -> str | None:
    """The file the latest user text asks for by name (``ask_to_write``), if it does."""
    last = messages[-1] if messages else None
    if not isinstance(last, UserMessage) or not isinstance(last.content, str):
        return None
    return asked_to_write(last.content)


def _nudged(messages: Sequence[AnyMessage], index: int) -> bool:
    """Whether the message at ``index`` is navtui's own nudge (the check failed, a claim questioned, a stop)."""
    if index >= len(messages):
        return False
    message = messages[index]
    return isinstance(message, UserMessage) and isinstance(message.content, str) and is_nudge(message.content)


def _results_text(results: list[str], reminder: str) -> str:
    end = f"{reminder} {RESULTS_END}" if reminder else RESULTS_END
    return "What happened:\n\n" + "\n\n".join(results) + "\n\n" + end


def _reminder(wrote: bool, said: str, files: Sequence[FileInPlay]) -> str:
    """Nothing after a reply that wrote a file; else how to write one, naming the file the reply talked about."""
    if wrote:
        return ""
    # The first file named is the one described; a new file the request asks for before any ("The first line of
    # README.md ... has been written into answer.txt": answer.txt is the one to write).
    named = sorted(
        (file.text != "", at, file.path)
        for file in files
        if file.text is not None and (at := _mention(said, file.path)) >= 0
    )
    block = described_block(said, files)
    if block is not None:
        return DESCRIBED.format(block=block)
    if named:
        return NAME_THE_FILE.format(ask=ask_to_write(named[0][2]))
    deleted = [file.path for file in files if file.hide]  # files the request deletes
    if deleted:
        return DELETE_IT.format(block="```bash\nrm " + " ".join(shlex.quote(path) for path in deleted) + "\n```")
    return NO_FILE_CHANGED


_DESCRIBED = re.compile(
    r"\b(?:change|replace|update|modify|edit)\s+(?:the\s+)?(?:line\s+|code\s+|expression\s+)?`([^`\n]+)`"
    r"\s+(?:to|with|into|by)\s+`([^`\n]+)`",
    re.IGNORECASE,
)
_PAIR = re.compile(r"`([^`\n]+)`\s+(?:to|with|into|by)\s+`([^`\n]+)`")
_NUMBERED = re.compile(r"^\d+: ")  # an excerpt's line number (files_in_play.py)


def described_block(said: str, files: Sequence[FileInPlay]) -> str | None:
    """The SEARCH/REPLACE block for the one change a reply describes in words ("change the line `A` to `B`"), when
    `A` is on exactly one line of exactly one file in play (whole, or in its excerpt); else None."""
    found = {(old.strip(), new.strip()) for old, new in _DESCRIBED.findall(said) if old.strip() != new.strip()}
    if len(found) != 1 or len(set(_PAIR.findall(said))) > 1:
        return None  # no change said, or more than one ("replace `a` with `b` and `x` with `y`")
    old, new = found.pop()
    hits: list[tuple[str, str]] = []
    for file in files:
        source = file.text if file.text is not None else (file.note if not file.hide else "")
        for line in source.splitlines():
            line = line if file.text is not None else _NUMBERED.sub("", line)
            if old in line:
                hits.append((file.path, line))
    if len(hits) != 1:
        return None
    path, line = hits[0]
    return f"{path}\n```\n<<<<<<< SEARCH\n{line}\n=======\n{line.replace(old, new, 1)}\n>>>>>>> REPLACE\n```"


def _mention(text: str, path: str) -> int:
    """Where ``text`` first names the file (its path or its bare name), or -1."""
    name = path.rsplit("/", 1)[-1]
    found = re.search(rf"(?<![\w./-])(?:[\w./-]*/)?{re.escape(name)}(?![\w-])", text)
    return found.start() if found is not None else -1


def _without_shown_attachments(text: str, shown: set[str]) -> str:
    """``<attached_file>`` blocks of files shown afresh in the files section are left out (no stale copy)."""

    def keep(match: re.Match[str]) -> str:
        return "" if posixpath.normpath(match.group(1)) in shown else match.group(0)  # "@./calc.py" is calc.py

    return re.sub(r'\n*<attached_file path="([^"]+)"[^>]*>\n.*?</attached_file>\n?', keep, text, flags=re.DOTALL)


def _append_user(out: list[AnyMessage], text: str) -> None:
    """Merge into a preceding user text message: strict chat templates want roles to alternate."""
    last = out[-1] if out else None
    if isinstance(last, UserMessage) and isinstance(last.content, str):
        out[-1] = last.model_copy(update={"content": f"{last.content}\n\n{text}"})
    else:
        out.append(UserMessage(content=text))


def edits_system(system: str) -> str:
    """The protocol's instructions, then what of the agent's system prompt is not about tools.

    The agent's prompt starts with its base instructions (tools, calls); from ``Environment:`` on it holds the
    working directory, the project's instruction files and handover notes, which stay.
    """
    marker = "\nEnvironment:\n"
    at = system.find(marker)
    rest = system[at + 1 :] if at >= 0 else ""
    return f"{INSTRUCTIONS}\n\n{rest}".rstrip() + "\n"


class EditsProvider(WrappedProvider):
    """Wraps an Ollama, OpenAI-compatible or Anthropic provider; tool calls travel as Markdown edit blocks."""

    tool_protocol = "edits"
    wants_files = True
    offers_tools = False

    async def stream(self, request: ChatRequest) -> ProviderStream:
        if not request.tools:  # a summary or a classifier question: plain text
            async with contextlib.aclosing(self.inner.stream(request)) as events:
                async for event in events:
                    yield event
            return
        names = {tool.name for tool in request.tools}
        if not names & {"write", "edit"}:  # an agent that cannot edit (the advisor): blocks would be no use to it
            from navtui.providers.textprovider import TextProtocolProvider

            async with contextlib.aclosing(TextProtocolProvider(self.inner).stream(request)) as events:
                async for event in events:
                    yield event
            return
        inner_request = replace(
            request,
            system=edits_system(request.system),
            messages=to_edit_messages(request.messages, request.files),
            tools=(),
            files=(),
        )
        shown = {file.path: file.text for file in request.files}
        asked = asked_path(inner_request.messages)
        parts = {file.path: shown_parts(file.note) for file in request.files if file.text is None and not file.hide}
        reader = BlockReader(shown, asked=asked, parts=parts)
        echo: EchoFilter | None = None
        start = reply_start(request.messages, inner_request.messages) if self.inner.continues_reply else None
        if start is not None:
            message = AssistantMessage(content=[TextBlock(text=start)])
            inner_request = replace(inner_request, messages=[*inner_request.messages, message])
            echo = EchoFilter(start)
            reader.feed(start)
        reply = _Reply(names=names, shown=shown, acted=_has_acted(request.messages))
        calls = reply.calls
        held: list[ProviderEvent] = []  # from the first block on, everything waits for the end of the reply
        stop: StopEvent | None = None
        async with contextlib.aclosing(self.inner.stream(inner_request)) as events:
            async for event in events:
                if isinstance(event, TextDelta):
                    text = echo.take(event.text) if echo is not None else event.text
                    for out in self._events(reader.feed(text), reply):
                        if held or isinstance(out, ToolCallEvent):
                            held.append(out)
                        else:
                            yield out
                elif isinstance(event, StopEvent):
                    stop = event
                elif isinstance(event, ErrorEvent):
                    yield event  # the blocks of a broken reply are never applied
                    return
                else:
                    yield event
        cut_off = stop is not None and stop.reason == "length"
        rest = self._events(reader.feed(echo.rest()), reply) if echo is not None else []
        for out in [*held, *rest, *self._events(reader.finish(cut_off=cut_off), reply)]:
            yield out
        if not calls and reply.repeats and not reply.said.strip() and told_unchanged(request.messages, reply.repeats):
            # Told that these files already read so, the model sent them again: it has nothing more to do, and its
            # blocks are its answer (the check, if any, runs next). Seen: add_function's test file sent back three
            # times, at temperature 0 and 0.7; as failed calls the third ended the run before the test ever ran.
            for segment in reply.repeats:
                yield TextDelta(text=segment.raw + "\n")
        elif not calls and reply.repeats and not reply.said.strip():
            # Only files copied out unchanged, not a word: an empty answer would end the turn (or be nudged to
            # "continue" in vain). Seen after a failed check: shop/prices.py sent again, cart.py left as it was.
            for segment in reply.repeats:
                call = self._call(segment, names, shown)
                if call is not None:
                    calls.append(call)
                    yield ToolCallEvent(call=call)
        yield StopEvent(reason="tool_use" if calls else (stop.reason if stop else "stop"))

    def _events(self, segments: list[Segment], reply: _Reply) -> list[ProviderEvent]:
        out: list[ProviderEvent] = []
        for segment in segments:
            if isinstance(segment, Unchanged) and reply.acted:
                reply.repeats.append(segment)
                continue  # a file repeated after the work was done, with words: the turn may end
            call = self._call(segment, reply.names, reply.shown)
            if call is None:
                if isinstance(segment, Prose):
                    reply.said += segment.text
                    out.append(TextDelta(text=segment.text))
                continue
            reply.calls.append(call)
            out.append(ToolCallEvent(call=call))
        return out

    def _call(self, segment: Segment, names: set[str], shown: dict[str, str | None]) -> ToolCall | None:
        args: dict[str, Any]
        match segment:
            case WholeFile(path=path, content=content):
                name, args = "write", {"path": path, "content": content}
            case SearchReplace(path=path, pairs=pairs):
                if len(pairs) == 1:
                    args = {"path": path, "old_text": pairs[0][0], "new_text": pairs[0][1]}
                else:
                    args = {"path": path, "edits": [{"old_text": old, "new_text": new} for old, new in pairs]}
                name = "edit"
                if any(not old.strip() for old, _ in pairs):
                    name, args = _empty_search(path, pairs, segment.raw, shown.get(path, ""))
            case Command(command=command):
                name, args = "shell", {"command": command}
            case Unchanged(path=path, raw=raw):
                why = (
                    f"{path} {ALREADY_SO}, so nothing changed. Copying a file out does not do "
                    "the task: write the files that still need a change, or run a command."
                )
                new = [known for known, text in shown.items() if text == "" and known != path]
                if len(new) == 1:  # read_answer: README.md copied out where answer.txt was asked for
                    why += f" The request asks for a new file, {new[0]}: write the line {new[0]}, then its content in a fenced block."
                name, args = "write", {**error_arguments(f"Block not applied: {why}", raw), "path": path}
            case BadBlock(why=why, raw=raw, kind=kind, path=path):
                name, args = kind, error_arguments(f"Block not applied: {why}", raw)
                if path is not None:
                    args["path"] = path  # the result says which file was not changed (": not changed." before)
            case _:
                return None
        if name not in names:
            args = error_arguments(
                f"Block not applied: {name} is not allowed in this session (tools on offer: {', '.join(sorted(names))})",
                getattr(segment, "raw", ""),
            )
        return ToolCall(id=self.new_call_id(), name=name, arguments=args)


class EchoFilter:
    """Takes a reply's given start off the streamed text when the server sends it back (llama.cpp does, Ollama
    does not): the text goes on after the start either way."""

    def __init__(self, start: str) -> None:
        self.start = start
        self._seen = ""
        self._done = False

    def take(self, text: str) -> str:
        if self._done:
            return text
        self._seen += text
        if self.start.startswith(self._seen):
            return ""  # so far the start echoed, or nothing yet
        self._done = True
        seen, self._seen = self._seen, ""
        return seen[len(self.start) :] if seen.startswith(self.start) else seen

    def rest(self) -> str:
        """At the end: what was held back and is not the echo of the whole start."""
        if self._done or self.start.startswith(self._seen):
            return ""
        return self._seen


def reply_start(messages: Sequence[AnyMessage], rendered: Sequence[AnyMessage]) -> str | None:
    """How the next reply starts, when navtui gives its start: the block navtui asks for, once the model is stuck.

    Stuck is: the latest reply repeated an earlier one word for word (fix_test: sampled at 0.7, the 1.5B sent its
    plan and its test command a third time), or navtui's own message asks for one thing the model has not done
    (a missing file, a file left unchanged, a rename's next file, a claimed change or deletion). Then a named
    file's reply starts with its path line and a fence, a deletion's with a ``bash`` fence; the model writes
    the rest. Seen before this: told "count.txt does not exist yet", the 1.5B answered with the message's own
    words; offered the very block for answer.txt, it answered in a sentence. A message that offers a ready
    SEARCH/REPLACE block starts the reply with that block's path line, fence and SEARCH marker, stuck or not.
    """
    final = rendered[-1] if rendered else None
    offered = (
        _OFFERED.search(final.content) if isinstance(final, UserMessage) and isinstance(final.content, str) else None
    )
    if offered is not None:
        # navtui's message holds the SEARCH/REPLACE block to send: offered it, the 1.5B answered "The task is
        # done." (edit_big, the refused block's own line) or "The change has been made" (big_repo, fix 7).
        return f"{offered.group(1)}\n```\n<<<<<<< SEARCH\n"
    last = messages[-1] if messages else None
    nudged = isinstance(last, UserMessage) and isinstance(last.content, str) and is_nudge(last.content)
    if not (nudged or _repeated(messages)):
        return None
    asked = asked_path(rendered)
    if asked is not None:
        return f"{asked}\n```\n"
    final = rendered[-1] if rendered else None
    if isinstance(final, UserMessage) and isinstance(final.content, str) and DELETED_NOTHING in final.content:
        return "```bash\n"
    return None


# The ready blocks navtui's messages offer (DESCRIBED, and editblocks.search_replace_howto's for a refused block).
_OFFERED = re.compile(
    r"(?:Send the change you describe as this block|For the line you changed):\n\n([^\n`]+)\n```\n<<<<<<< SEARCH\n"
)


def _repeated(messages: Sequence[AnyMessage]) -> bool:
    """Whether a reply since the user's request said and did exactly what an earlier one did."""
    seen: set[str] = set()
    for message in reversed(messages):
        if isinstance(message, UserMessage) and isinstance(message.content, str) and not is_nudge(message.content):
            break
        if isinstance(message, AssistantMessage):
            key = render_assistant(message).text
            if key in seen:
                return True
            seen.add(key)
    return False


@dataclass
class _Reply:
    """What one reply has turned into so far."""

    names: set[str]  # the tools on offer
    shown: dict[str, str | None]  # the files in play, as shown
    acted: bool  # a block of this conversation already changed a file or ran a command
    calls: list[ToolCall] = field(default_factory=list)
    repeats: list[Unchanged] = field(default_factory=list)  # files sent again unchanged after the work was done
    said: str = ""  # its prose


def told_unchanged(messages: Sequence[AnyMessage], repeats: Sequence[Unchanged]) -> bool:
    """Whether the latest reply was just these files sent unchanged, and navtui said so (nothing came between)."""
    for message in reversed(messages):
        if isinstance(message, ToolResultMessage):
            continue
        if not isinstance(message, AssistantMessage) or not message.tool_calls:
            return False
        told = {
            call.arguments.get("path")
            for call in message.tool_calls
            if call.name == "write" and ALREADY_SO in str(call.arguments.get(PARSE_ERROR_KEY, ""))
        }
        return len(told) == len(message.tool_calls) and told == {segment.path for segment in repeats}
    return False


def _has_acted(messages: Sequence[AnyMessage]) -> bool:
    """Whether a block of this conversation changed a file or ran a command (a result that is no error)."""
    return any(
        isinstance(m, ToolResultMessage) and not m.is_error and m.tool_name in ("write", "edit", "shell")
        for m in messages
    )


def _empty_search(path: str, pairs: list[tuple[str, str]], raw: str, current: str | None) -> tuple[str, dict[str, Any]]:
    """An empty SEARCH: the whole text of a new (or empty) file; for a file with content, a mistake to explain.

    ``current`` is None for a file in play shown only in part: it has content the model has not seen. Taken as
    empty, a 300-line config.py attached with @ and shown as its TIMEOUT lines was written over with three."""
    if len(pairs) == 1 and current is not None and not current.strip():
        return "write", {"path": path, "content": pairs[0][1]}
    whole = "." if current is None else ", or send the whole file."  # shown in part: a whole file is refused
    return "edit", error_arguments(
        f"Block not applied: a SEARCH section for {path} is empty. Copy the lines to change into it exactly{whole}",
        raw,
    )
