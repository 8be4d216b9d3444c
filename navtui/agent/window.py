"""Fitting the agent to the model's window: compact prompts for small windows, output capped to fit, a clear stop.

Local models often run with 2k-8k windows, where navtui's full system prompt and tool set alone would take
most of the room. Below ``COMPACT_BELOW`` tokens the agent offers only the core tools with one-line
descriptions and a short system prompt. Each request's output limit is capped so prompt and answer fit, and a
window too small for even the system prompt and tools stops the run with what to change (docs/providers.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from navtui.core.errors import NavtuiError
from navtui.core.events import Notice

if TYPE_CHECKING:
    from navtui.tools.base import ToolRegistry


class Compactable(Protocol):
    """What ``compact_tools`` changes of an agent (``loop.Agent`` is one)."""

    tools: ToolRegistry
    compact: bool


COMPACT_BELOW = 8192
MIN_OUTPUT = 256  # never ask for less: an answer this short is no answer
OUTPUT_MARGIN = 0.03  # of the window, for the gap between our estimate and the server's tokenizer


class ContextTooSmall(NavtuiError):
    """The system prompt and tools alone do not fit the model's window."""


def unknown_window_notice(model: str, base_url: str | None, published: int | None = None) -> Notice:
    """What to set when the server does not say its window; ``published``: the model's own, which a local server
    often runs far less of (so it is not assumed)."""
    where = f" at {base_url}" if base_url else ""
    if published is None:
        return Notice(
            text=f"The context window of {model}{where} is unknown: the server does not report it. "
            "Set providers.context_window in settings.json so navtui can keep requests inside it.",
            level="warning",
        )
    return Notice(
        text=f"The context window of {model}{where} is unknown: the server does not report it, and a local server "
        f"runs the window it was started with, often far less than the model's {published:,} tokens, so navtui "
        "does not assume that. Set providers.context_window in settings.json to the server's (llama.cpp -c, "
        "vLLM --max-model-len) so navtui compacts before the server cuts the conversation.",
        level="warning",
    )


def wants_compact(window: int | None, setting: str) -> bool:
    if setting == "on":
        return True
    if setting == "off" or not window:
        return False
    return window < COMPACT_BELOW


def compact_tools(agent: Compactable, core: tuple[str, ...], keep: tuple[str, ...] = ("handover",)) -> list[str]:
    """Give the agent its own registry of the core tools (and those it handles itself); return what was dropped.

    The runtime's full registry is left as it was, so a later agent for a larger window gets every tool.
    """
    from navtui.tools.base import ToolRegistry

    dropped = [name for name in agent.tools.names() if name not in core and name not in keep]
    agent.tools = ToolRegistry(tool for tool in agent.tools if tool.name not in dropped)
    agent.tools.compact = True
    agent.compact = True
    return dropped


def output_limit(window: int | None, prompt_tokens: int, wanted: int | None) -> int | None:
    """The output limit for one request: what was asked for, capped so prompt and answer fit the window."""
    if not window:
        return wanted
    room = window - prompt_tokens - int(window * OUTPUT_MARGIN)
    limit = room if wanted is None else min(wanted, room)
    return max(limit, min(MIN_OUTPUT, wanted or MIN_OUTPUT))


def check_fixed_fits(fixed_tokens: int, window: int, hard_limit: int) -> None:
    """Raise ContextTooSmall when the system prompt and tools leave no room for a conversation and an answer."""
    if fixed_tokens + MIN_OUTPUT <= hard_limit:
        return
    raise ContextTooSmall(
        f"The system prompt and tools alone take ~{fixed_tokens} tokens: they do not fit the model's window of "
        f"{window} tokens with room for an answer",
        hint="give the model a larger window (llama.cpp -c/--ctx-size, Ollama num_ctx via providers.num_ctx_cap), "
        "set providers.compact_prompt to on, or correct providers.context_window if it is wrong",
    )


def describe_compact(window: int, agent: Any, dropped: list[str]) -> Notice:
    kept = ", ".join(agent.tools.names())
    text = f"Small context window ({window} tokens): compact prompt with the core tools ({kept})"
    return Notice(text=text + (f"; not offered: {', '.join(dropped)}." if dropped else "."), level="info")


def fit_window(runtime: Any, *, announce: bool = True) -> None:
    """Give ``runtime``'s agent the window the server reported; below ``COMPACT_BELOW`` the compact prompt.

    ``announce`` queues what was decided in ``runtime.pending_notices`` (said at the start of the next run).
    """
    from navtui.agent.prompt import build_system_prompt
    from navtui.tools.registry import CORE_TOOLS

    info, agent, settings = runtime.model_info, runtime.agent, runtime.settings.providers
    if info is None:
        return
    reason = getattr(runtime.provider, "protocol_reason", None)
    if announce and reason:
        runtime.pending_notices.append(Notice(text=f"auto: {reason} (docs/eval.md).", level="info"))
    if info.context_window and not settings.context_window:
        agent.budget.window = info.context_window
        note = info.extra.get("window_note")  # a window assumed, not told: said with how to set the real one
        if announce and note:
            runtime.pending_notices.append(Notice(text=note, level="warning"))
    size = agent.budget.window
    if size is None:
        if announce:
            provider = runtime.provider
            published = info.extra.get("published_window")
            runtime.pending_notices.append(unknown_window_notice(provider.model, provider.base_url, published))
    elif wants_compact(size, settings.compact_prompt) and not agent.compact:
        dropped = compact_tools(agent, CORE_TOOLS)
        agent.system_prompt = build_system_prompt(runtime.cwd, agent.tools.specs(), compact=True)
        if announce:
            runtime.pending_notices.append(describe_compact(size, agent, dropped))
