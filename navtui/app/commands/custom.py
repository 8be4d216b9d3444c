"""Custom slash commands from Markdown files, as Claude Code reads them: ``~/.navtui/commands/NAME.md`` (yours) and
``<repo>/.navtui/commands/NAME.md`` (the repository's) become ``/NAME``, listed in /help, the palette and completion.

The file is a prompt: ``$ARGUMENTS`` is replaced by what follows the command, ``$1`` … ``$9`` by its words (shell
quoting), and without either the words are added after the text. Optional front matter (``---`` lines) may give
``description`` and ``argument-hint``; any other key (``model``, ``allowed-tools`` …) is ignored: a command is a
prompt only, never a setting. Running one sends the prompt as your message (never as a command, ``!cmd`` or
``$code``). A repository's command cannot replace a built-in or one of yours, and its ``@path`` mentions are not
attached (the words you add can be): a cloned repository may ask the model things, not read your files into it.

Read when the runtime is ready (``CommandFolders.load`` in a thread, then ``register_custom_commands``); the
registry is the app's one, so other sources of commands (MCP prompts) sit beside them. A file added, edited or
removed while the app runs counts from its next use: completion, /help, the palette and running a ``/`` line first
ask ``CommandFolders.changed`` (one directory listing and a stat per file of the two folders, ~20 µs for a few
files) and read the folders again when it says so.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from navtui.app.commands.registry import CommandContext, CommandRegistry, Handler, SlashCommand
from navtui.config.repo_files import RefusedFile, read_regular
from navtui.core.display import display_safe

Origin = Literal["user", "project"]
MAX_BYTES = 64_000  # a command file longer than this is not read
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_POSITIONAL = re.compile(r"\$([1-9])")
# An @ in a repository's template that starts a mention once it is filled in, as navtui/agent/attachments.py finds
# them: at the start, after white space, or right after a placeholder (which may be filled with nothing, or with a
# quoted word ending in a space: "$ARGUMENTS@~/.netrc" run with no words is "@~/.netrc").
_AT_MENTION = re.compile(r"(?:^|(?<=\s)|(?<=\$ARGUMENTS)|(?<=\$[1-9]))@(\S+)")
_loaded: set[str] = set()  # names registered by the last load (a reload replaces them)


@dataclass(frozen=True)
class CustomCommand:
    name: str
    template: str
    origin: Origin
    path: Path
    description: str = ""
    argument_hint: str = ""

    @property
    def help(self) -> str:
        first = next((line.strip() for line in self.template.splitlines() if line.strip()), "")
        text = self.description or (first[:70] + ("…" if len(first) > 70 else ""))
        return display_safe(f"{text} ({self.origin} command)")

    def expand(self, args: str) -> str:
        """The prompt for ``/name args``."""
        from navtui.agent.attachments import mention_as_written

        template = self.template
        if self.origin == "project":
            template = _AT_MENTION.sub(r"`@\1`", template)
        args = args.strip()
        placeholders = "$ARGUMENTS" in template or _POSITIONAL.search(template) is not None
        try:
            words = shlex.split(args)
        except ValueError:
            words = args.split()
        text = template.replace("$ARGUMENTS", args)
        words = [mention_as_written(word) for word in words]
        text = _POSITIONAL.sub(lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", text)
        if args and not placeholders:
            text = f"{text.rstrip()}\n\n{args}"
        return text.strip()


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    if not text.startswith("---\n"):
        return {}, text
    head, found, body = text[4:].partition("\n---")
    if not found:
        return {}, text
    fields = {}
    for line in head.splitlines():
        key, colon, value = line.partition(":")
        if colon:
            fields[key.strip().lower()] = value.strip().strip("\"'")
    return fields, body.partition("\n")[2]


def read_commands(directory: Path, origin: Origin, inside: Path | None = None) -> tuple[list[CustomCommand], list[str]]:
    """The commands in ``directory`` (its ``*.md`` files, by name) and a warning per file that could not be one.
    With ``inside`` (a repository), a file must be a regular file in it, links followed (``config/repo_files.py``):
    ``review.md -> /proc/self/environ`` would send navtui's environment as your message."""
    commands: list[CustomCommand] = []
    warnings: list[str] = []
    try:
        files = sorted(path for path in directory.glob("*.md") if path.is_file())
    except OSError:
        return [], []
    for path in files:
        name = path.stem
        if not _NAME.match(name):
            warnings.append(f"{path}: not a command name (letters, digits, - _ . only); skipped")
            continue
        try:
            data, size = read_regular(path, MAX_BYTES + 1, inside=inside)
            if size > MAX_BYTES:
                warnings.append(f"{path}: longer than {MAX_BYTES:,} bytes; skipped")
                continue
            text = data.decode("utf-8").replace("\r\n", "\n")
        except RefusedFile as exc:
            warnings.append(f"{path} {exc}; skipped")
            continue
        except (OSError, UnicodeDecodeError) as exc:
            warnings.append(f"{path}: cannot be read ({exc}); skipped")
            continue
        fields, body = _front_matter(text)
        if not body.strip():
            warnings.append(f"{path}: holds no prompt; skipped")
            continue
        commands.append(
            CustomCommand(
                name, body.strip(), origin, path, fields.get("description", ""), fields.get("argument-hint", "")
            )
        )
    return commands, warnings


def _handler(command: CustomCommand) -> Handler:
    async def run(ctx: CommandContext, args: str) -> None:
        ctx.send(command.expand(args))

    return run


def find_custom_commands(user_dir: Path, project_dir: Path) -> tuple[list[CustomCommand], list[str]]:
    """The user's then the repository's commands, and the warnings about files that are none. Blocking.
    A repository in your home (dotfiles) has your folder as its own: it is read once, as yours."""
    user, user_problems = read_commands(user_dir, "user")
    if project_dir.resolve() == user_dir.resolve():
        return user, user_problems
    project, project_problems = read_commands(project_dir, "project", inside=project_dir.parent.parent)  # <repo>
    return [*user, *project], [*user_problems, *project_problems]


Fingerprint = tuple[tuple[str, str, int, int, int], ...]


def fingerprint(*directories: Path) -> Fingerprint:
    """What changes when a command file is added, edited, renamed or removed in ``directories``: each ``*.md``
    entry's name, file (inode: an editor's save by rename), modification time and size (a missing folder has none)."""
    entries: list[tuple[str, str, int, int, int]] = []
    for directory in directories:
        try:
            with os.scandir(directory) as listing:
                for entry in listing:
                    if not entry.name.endswith(".md"):
                        continue
                    try:
                        info = entry.stat()  # follows a symlink: an edit of its target counts
                    except OSError:
                        info = None
                    stamp = (info.st_ino, info.st_mtime_ns, info.st_size) if info else (-1, -1, -1)
                    entries.append((str(directory), entry.name, *stamp))
        except OSError:
            continue
    return tuple(sorted(entries))


class CommandFolders:
    """The user's and the repository's command folders, and what they held when last read."""

    def __init__(self, user_dir: Path, project_dir: Path) -> None:
        self.user_dir, self.project_dir = user_dir, project_dir
        self._seen: Fingerprint | None = None

    def changed(self) -> bool:
        """A file in either folder was added, edited or removed since ``load`` (never read: True)."""
        return self._seen != fingerprint(self.user_dir, self.project_dir)

    def load(self) -> tuple[list[CustomCommand], list[str]]:
        """Read both folders (``find_custom_commands``) and remember what they held. Blocking."""
        self._seen = fingerprint(self.user_dir, self.project_dir)
        return find_custom_commands(self.user_dir, self.project_dir)


def register_custom_commands(registry: CommandRegistry, commands: list[CustomCommand]) -> list[str]:
    """Register ``commands`` in order (replacing an earlier load's); a warning for each name already taken."""
    for name in _loaded:
        registry.unregister(name)
    _loaded.clear()
    warnings: list[str] = []
    for command in commands:
        if registry.get(command.name) is not None:
            owner = "your own command" if command.name in _loaded else "a built-in command"
            warnings.append(f"{command.path}: /{command.name} is already {owner}; this file is skipped")
            continue
        hint = display_safe(command.argument_hint.strip("[] ")) or "args"  # a repository's words: /help shows it
        registry.register(SlashCommand(command.name, command.help, _handler(command), args=f"[{hint}]"))
        _loaded.add(command.name)
    return warnings
