"""MCP prompts as slash commands: ``/mcp__<server>__<prompt> ARG...`` gets the prompt from the server and sends
its text as the user's prompt.

Arguments are taken in the order the server lists them (shell-style quoting groups words; the last argument
takes whatever words are left), so ``/mcp__git__review src/app.py "error handling"`` fills ``file`` and
``focus``. A missing required argument is an error naming the synopsis.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from navtui.core.display import display_safe
from navtui.core.errors import NavtuiError
from navtui.mcp.tool import PREFIX

if TYPE_CHECKING:
    from navtui.mcp.listing import RemotePrompt


def command_name(server: str, prompt: str) -> str:
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in prompt)
    return f"{PREFIX}{server}__{safe}"


def synopsis(prompt: RemotePrompt) -> str:
    """``FILE [FOCUS]``: required arguments bare, optional ones in brackets."""
    words = [arg.name.upper() if arg.required else f"[{arg.name.upper()}]" for arg in prompt.arguments]
    return " ".join(words)


@dataclass(frozen=True)
class PromptCommand:
    """One server prompt as a slash command."""

    server: str
    prompt: RemotePrompt

    @property
    def name(self) -> str:
        return command_name(self.server, self.prompt.name)

    # The server's words (its description, its arguments' names) reach /help, the completion list and the palette:
    # control characters are made visible here, once (the palette also gets them as text, not markup).
    @property
    def args(self) -> str:
        return display_safe(synopsis(self.prompt))  # one that starts with "[" reads as "arguments optional"

    @property
    def help(self) -> str:
        about = self.prompt.description.strip().splitlines()[0] if self.prompt.description.strip() else ""
        return display_safe(f"MCP prompt of {self.server}" + (f": {about}" if about else ""))

    def arguments(self, text: str) -> dict[str, str]:
        """``text`` mapped onto the prompt's arguments in order; the last one takes the words left over."""
        from navtui.agent.attachments import mention_as_written

        try:
            words = [mention_as_written(word) for word in shlex.split(text)]  # @"a b.md" stays one whole @path
        except ValueError as exc:
            raise NavtuiError(f"/{self.name}: {exc}", hint=f"usage: /{self.name} {synopsis(self.prompt)}") from exc
        names = [arg.name for arg in self.prompt.arguments]
        if not names and words:
            raise NavtuiError(f"/{self.name} takes no arguments", hint=f"usage: /{self.name}")
        values: dict[str, str] = {}
        for index, name in enumerate(names):
            if index >= len(words):
                break
            values[name] = " ".join(words[index:]) if index == len(names) - 1 else words[index]
        missing = [arg.name for arg in self.prompt.arguments if arg.required and arg.name not in values]
        if missing:
            raise NavtuiError(
                f"/{self.name} needs {', '.join(missing)}", hint=f"usage: /{self.name} {synopsis(self.prompt)}"
            )
        return values


# Characters of a server's prompt sent as the user's message, as for a resource (``resources.ATTACH_LIMIT``): a
# hostile server can answer with hundreds of megabytes, or a million messages.
PROMPT_LIMIT = 100_000


@dataclass(frozen=True)
class PromptText:
    """A prompt's text as it is sent, and how large the server's whole answer was (``cut`` when it was larger)."""

    text: str
    size: int  # characters of the whole prompt
    messages: int
    cut: bool


def prompt_text(result: Any, limit: int = PROMPT_LIMIT) -> PromptText:
    """A ``prompts/get`` result as one prompt: each message's text, an embedded resource's text in a block;
    the server's assistant turns (examples of an answer) are marked as such. Past ``limit`` characters the rest is
    only counted, and the text ends saying where it was cut."""
    from mcp.types import EmbeddedResource, TextContent, TextResourceContents

    parts: list[str] = []
    kept = size = count = 0
    for message in result.messages:
        count += 1
        content = message.content
        if isinstance(content, TextContent):
            text = content.text
        elif isinstance(content, EmbeddedResource) and isinstance(content.resource, TextResourceContents):
            text = f'<mcp_resource uri="{content.resource.uri}">\n{content.resource.text}\n</mcp_resource>'
        else:
            text = f"[{getattr(content, 'type', 'content')} not shown]"
        text = f"(assistant) {text}" if message.role == "assistant" else text
        size += len(text) + (2 if count > 1 else 0)
        if kept <= limit:
            parts.append(text)
            kept += len(text) + 2
    whole = "\n\n".join(parts)
    if size <= limit:
        return PromptText(whole, size, count, cut=False)
    marker = f"\n\n[... the prompt was cut at {limit:,} characters of {size:,} ({count:,} messages) ...]"
    return PromptText(whole[:limit] + marker, size, count, cut=True)
