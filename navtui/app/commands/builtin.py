"""The built-in slash commands: /help /clear /new /model /models /context /approval /sandbox /name /copy /export
/quit."""

from __future__ import annotations

import asyncio
import subprocess
from typing import TYPE_CHECKING

from navtui.app.commands import CommandContext, CommandRegistry
from navtui.core.errors import NavtuiError
from navtui.core.programs import find_program

if TYPE_CHECKING:
    from navtui.agent.status import ContextUsage
    from navtui.app.ui_runtime import UiRuntime
    from navtui.tools.approval import ApprovalMode
    from navtui.widgets.items import Level

APPROVAL_MODES: tuple[ApprovalMode, ...] = ("ask", "write", "yolo")
_APPROVAL_HELP = {
    "ask": "asks before every write and command",
    "write": "writes files freely, asks before commands",
    "yolo": "never asks",
}


async def help_command(ctx: CommandContext, args: str) -> None:
    from navtui.app.commands import COMMANDS
    from navtui.app.screens.help import HelpScreen

    ctx.app.push_screen(HelpScreen(COMMANDS.all()))


async def clear_command(ctx: CommandContext, args: str) -> None:
    ctx.runtime.clear()
    ctx.clear_transcript()
    ctx.notice("Context cleared. The session file is kept; the next message starts a new branch.")
    ctx.refresh_status()


async def new_command(ctx: CommandContext, args: str) -> None:
    ctx.runtime.new_session()
    ctx.clear_transcript()
    ctx.notice("New session started.")
    ctx.refresh_status()


async def model_command(ctx: CommandContext, args: str) -> None:
    runtime = ctx.runtime
    if not args:
        provider = runtime.provider
        ctx.notice(f"Model: {provider.model} ({provider.name}). /model NAME switches, /models (ctrl+l) lists them.")
        return
    await switch_model(ctx, args)


async def thinking_command(ctx: CommandContext, args: str) -> None:
    """/thinking [level]: show or set how hard the model thinks (shift+tab steps through the levels)."""
    from navtui.config.launch import THINKING_LEVELS

    runtime = ctx.runtime
    level = args.strip().lower()
    if not level:
        ctx.notice(
            f"Thinking: {runtime.thinking_level}. /thinking {'|'.join(THINKING_LEVELS)} sets it (shift+tab steps)."
        )
        return
    set_thinking(ctx, level)


def set_thinking(ctx: CommandContext, level: str) -> None:
    """Set the level now (shift+tab calls it from its key: a worker's later run read the level too soon)."""
    try:
        ctx.runtime.set_thinking_level(level)
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
        return
    ctx.notice(f"Thinking: {level}.", tag="thinking")  # shift+tab pressed again: this notice updates
    ctx.refresh_status()


def _same_endpoint(runtime: UiRuntime, name: str) -> str | None:
    """The provider a plain name stays on: an OpenAI-compatible server that is not OpenAI's own (llama-server,
    vLLM, LM Studio) serves whatever it lists, so ``/model qwen2.5-coder:7b`` there is its model, not Ollama's."""
    from navtui.config.endpoints import DEFAULT_URLS, detect_provider

    provider = runtime.provider
    if (
        provider.name == "openai"
        and (provider.base_url or DEFAULT_URLS["openai"]).rstrip("/") != DEFAULT_URLS["openai"]
    ):
        return None if detect_provider(name) == "anthropic" else "openai"
    return None


def _has_model(listed: list[str], name: str) -> bool:
    """``name`` is listed (Ollama's ``qwen3`` is ``qwen3:latest``)."""
    return name in listed or (":" not in name and f"{name}:latest" in listed)


async def switch_model(ctx: CommandContext, name: str, provider: str | None = None) -> None:
    """Switch to ``name`` unless the server it would run on says it has no such model (the model stays).

    ``provider``: the one ``name`` belongs to (the picker's server); else it is worked out from the name."""
    from navtui.config.endpoints import detect_provider

    runtime = ctx.runtime
    provider = provider or _same_endpoint(runtime, name)
    current = runtime.provider
    if (provider or detect_provider(name)) == current.name and name != current.model:
        try:
            listed: list[str] | None = await runtime.list_models()
        except Exception:  # cannot list (offline, no key): switch, and the check after says what is wrong
            listed = None
        if listed is not None and not _has_model(listed, name):
            shown = ", ".join(listed[:8]) + (" …" if len(listed) > 8 else "")
            pull = f"/models pull {name} downloads it; " if current.name == "ollama" else ""
            ctx.error(
                f"No model named {name} on {current.name} at {current.base_url}; still on {current.model}.",
                f"{pull}installed: {shown or 'none'} (/models lists them)",
            )
            return
    try:
        await runtime.switch_model(name, provider)
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
        return
    ctx.notice(f"Switched to {runtime.provider.model} ({runtime.provider.name}); the conversation is kept.")
    ctx.refresh_status()
    status = await runtime.check_provider()
    if not status.ok:
        missing = status.kind == "not_found" and getattr(runtime.provider, "can_pull", False)
        ctx.error(status.message, f"/models pull {runtime.provider.model} downloads it" if missing else status.hint)
    ctx.refresh_status()


async def model_names(ctx: CommandContext) -> list[str]:
    """/model's arguments: what the provider lists, then the models named in settings."""
    from navtui.app.screens.models import configured_models

    runtime = ctx.runtime
    try:
        listed = await runtime.list_models()
    except Exception:  # offline or no key: the settings' models are still worth offering
        listed = []
    return list(dict.fromkeys([*listed, *configured_models(runtime)]))


async def approval_modes(ctx: CommandContext) -> list[str]:
    return list(APPROVAL_MODES)


def context_report(usage: ContextUsage) -> str:
    """``/context`` in words."""
    window, used = usage.window, usage.used
    counts, tokens = usage.messages, usage.message_tokens
    return "\n".join(
        [
            f"Model: {usage.model}  window: {window or 'unknown'}",
            f"Context used: ~{used} tokens" + (f" ({used * 100 // window}%)" if window else ""),
            f"System prompt: ~{usage.system_tokens} tokens",
            f"Tools: {len(usage.tools)} ({', '.join(usage.tools)})",
            *_mcp_line(usage.mcp_tokens),
            "Context files: " + (", ".join(usage.context_files) or "none"),
            f"Messages: {sum(counts.values())} — user {counts['user']} (~{tokens['user']} tok), "
            f"assistant {counts['assistant']} (~{tokens['assistant']} tok), "
            f"tool results {counts['toolResult']} (~{tokens['toolResult']} tok)",
        ]
    )


def _mcp_line(sizes: dict[str, int]) -> list[str]:
    if not sizes:
        return []
    each = ", ".join(f"{name} ~{tokens}" for name, tokens in sizes.items())
    return [f"MCP tool schemas: ~{sum(sizes.values())} tokens ({each})"]


async def context_command(ctx: CommandContext, args: str) -> None:
    usage = await asyncio.to_thread(ctx.runtime.context_usage)
    ctx.notice(context_report(usage), title="Context")


async def approval_command(ctx: CommandContext, args: str) -> None:
    runtime = ctx.runtime
    if not args:
        current = runtime.policy.mode
        others = ", ".join(f"{m} ({_APPROVAL_HELP[m]})" for m in APPROVAL_MODES if m != current)
        ctx.notice(f"Approval mode: {current} — {_APPROVAL_HELP.get(current, '')}. Other modes: {others}.")
        return
    word = args.split()[0].lower()
    mode = _approval_mode(word)
    if mode is None:
        ctx.notice(f"Unknown approval mode '{word}'. Use one of: {', '.join(APPROVAL_MODES)}.", level="warning")
        return
    runtime.set_approval(mode)
    ctx.notice(f"Approval mode: {mode} — {_APPROVAL_HELP[mode]}.")
    ctx.refresh_status()


async def sandbox_modes(ctx: CommandContext) -> list[str]:
    from typing import get_args

    from navtui.config.settings import SandboxMode

    return list(get_args(SandboxMode))


async def sandbox_command(ctx: CommandContext, args: str) -> None:
    """``/sandbox``: what commands may touch and why; ``/sandbox MODE`` switches for this session."""
    runtime = ctx.runtime
    sandbox = runtime.ctx.sandbox
    if not args:
        level: Level = "warning" if sandbox is not None and sandbox.warning else "info"
        ctx.notice(sandbox.describe() if sandbox is not None else "No sandbox.", title="Sandbox", level=level)
        return
    try:
        text = runtime.set_sandbox(args.split()[0].lower())
    except NavtuiError as exc:
        ctx.notice(f"{exc.message} ({exc.hint}).", level="warning")
        return
    ctx.notice(text + "\nFor this session only; sandbox.mode in ~/.navtui/settings.json keeps it.", title="Sandbox")
    ctx.refresh_status()


def _approval_mode(word: str) -> ApprovalMode | None:
    for mode in APPROVAL_MODES:
        if mode == word:
            return mode
    return None


async def name_command(ctx: CommandContext, args: str) -> None:
    try:
        ctx.runtime.set_session_name(args)
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
        return
    ctx.notice(f"Session named “{' '.join(args.split())}”.")  # as the session keeps it: one line
    ctx.refresh_status()


def _system_copy(text: str) -> str | None:
    """Copy with a clipboard program when one is installed (blocking); returns its name."""
    for program in (["wl-copy"], ["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"], ["pbcopy"]):
        found = find_program(program[0])
        if found is None:
            continue
        try:
            subprocess.run(
                [found, *program[1:]], input=text.encode("utf-8", "replace"), timeout=3, check=True, capture_output=True
            )
        except (OSError, subprocess.SubprocessError):
            continue
        return program[0]
    return None


async def copy_command(ctx: CommandContext, args: str) -> None:
    text = ctx.runtime.last_answer()
    if not text:
        ctx.notice("Nothing to copy yet: no answer in this conversation.", level="warning")
        return
    ctx.app.copy_to_clipboard(text)  # OSC 52: works over ssh, needs terminal support
    program = await asyncio.to_thread(_system_copy, text)
    via = f"via OSC 52 and {program}" if program else "via OSC 52"
    fallback = (
        ""
        if program
        else " If nothing was copied, your terminal ignores OSC 52 (in tmux: set -g set-clipboard on); /export writes the session to a file."
    )
    ctx.notice(f"Copied the last answer ({len(text)} characters) {via}.{fallback}")


async def find_command(ctx: CommandContext, args: str) -> None:
    """/find WORDS: scroll to the newest entry of the transcript that holds them; /find alone: the one before."""
    from navtui.widgets.items import FIND_TAG, item_text

    view = ctx.transcript
    last = view.last_found
    if last is not None and (not args or args == last[0]):
        words, before = last[0], last[1]  # again: the entry before the one shown
    elif args:
        words, before = args, None
    else:
        ctx.notice(
            "Usage: /find WORDS — show the newest entry that holds them; /find again for an earlier one.", tag=FIND_TAG
        )
        return
    index = view.find(words, before)
    if index is None:
        if before is None:
            ctx.notice(f"Nothing in this session holds “{words}”.", tag=FIND_TAG)
        else:
            found = sum(1 for item in view.items if words.casefold() in item_text(item).casefold())
            ctx.notice(f"No earlier entry holds “{words}” ({found} found).", tag=FIND_TAG)
        view.last_found = None
        view.mark_found(None)  # the words found before are not these
        return
    view.last_found = (words, index)
    await view.reveal(index, words)
    ctx.app.notify(
        f"“{words}”: entry {index + 1:,} of {len(view.items):,}. /find for an earlier one, PgDn to go back down.",
        markup=False,
    )


async def export_command(ctx: CommandContext, args: str) -> None:
    """/export [path]: the session as HTML (or Markdown for a .md name), by default in ~/.navtui/exports/."""
    from navtui.session.export import check_replaceable, export_format, export_html, export_markdown, export_target

    runtime = ctx.runtime
    session = runtime.session
    try:
        if session is None:  # an ephemeral run: what the transcript shows, as Markdown
            from datetime import datetime

            from navtui.app.export import transcript_markdown
            from navtui.core.fs import atomic_write_text

            name = f"navtui-transcript-{datetime.now():%Y%m%d-%H%M%S}.md"
            path = await asyncio.to_thread(export_target, args, runtime.cwd, name)
            await asyncio.to_thread(atomic_write_text, path, transcript_markdown(ctx.transcript.items))
            ctx.notice(f"Exported the transcript to {path}")
            return
        path = await asyncio.to_thread(export_target, args, runtime.cwd, f"navtui-{session.session_id[:8]}.html")
        await asyncio.to_thread(check_replaceable, path, "give another name, or remove that file first")
        exporter = export_markdown if export_format(path) == "md" else export_html
        written = await asyncio.to_thread(exporter, session, path)
    except NavtuiError as exc:  # says what to do itself ("give another name, or remove that file first")
        ctx.error(f"Could not export: {exc.message}", exc.hint)
        return
    except OSError as exc:
        ctx.error(f"Could not export: {exc}", "check the folder exists and is writable, or give another path")
        return
    ctx.notice(f"Exported the session to {written}")


async def quit_command(ctx: CommandContext, args: str) -> None:
    ctx.app.exit()


def register(registry: CommandRegistry) -> None:
    registry.command("help", "list commands and keys", key="f1")(help_command)
    registry.command("clear", "empty the context (same session file, a new branch)")(clear_command)
    registry.command("new", "start a new session")(new_command)
    registry.command("model", "show the model, or switch to NAME (history kept)", args="[name]", arguments=model_names)(
        model_command
    )
    registry.command("thinking", "show or set the thinking level (off … xhigh)", args="[level]", key="shift+tab")(
        thinking_command
    )
    registry.command("context", "what is in the context: system prompt, files, messages, tokens")(context_command)
    registry.command(
        "approval", "show or set when tools ask first: ask, write, yolo", args="[mode]", arguments=approval_modes
    )(approval_command)
    registry.command(
        "sandbox",
        "show or set what commands may write: workspace-write, read-only, off",
        args="[mode]",
        arguments=sandbox_modes,
    )(sandbox_command)
    registry.command("name", "name this session", args="NAME")(name_command)
    registry.command("copy", "copy the last answer to the clipboard")(copy_command)
    registry.command(
        "find", "scroll back to the newest entry holding the words; again: an earlier one", args="[words]"
    )(find_command)
    registry.command("export", "write the session to HTML (or .md) in ~/.navtui/exports/, or to PATH", args="[path]")(
        export_command
    )
    registry.command("quit", "leave navtui", aliases=("exit", "q"))(quit_command)
