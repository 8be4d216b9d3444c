"""The system prompt: base instructions, tool guidance, environment, then the context files.

The prefix stays byte-identical across a session (no clock in it) so local servers can reuse their KV cache;
handover notes are appended at the very end.
"""

from __future__ import annotations

import platform
from importlib import resources
from pathlib import Path

from navtui.config.context_files import discover_context_files, render_context_block
from navtui.core.messages import ToolSpec


def base_prompt(*, compact: bool = False) -> str:
    name = "prompts/system-compact.md" if compact else "prompts/system.md"
    return resources.files("navtui.agent").joinpath(name).read_text(encoding="utf-8").strip()


def build_system_prompt(
    cwd: Path,
    tools: list[ToolSpec],
    *,
    extra_sections: list[str] | None = None,
    include_context_files: bool = True,
    compact: bool = False,
) -> str:
    """``compact``: the short base prompt for small windows (the context files still follow)."""
    sections = [base_prompt(compact=compact)]
    if tools:
        sections.append("Available tools: " + ", ".join(t.name for t in tools) + ".")
    sections.append(f"Environment:\n- working directory: {cwd}\n- platform: {platform.system()} {platform.machine()}")
    sections.extend(s for s in extra_sections or [] if s)
    if include_context_files:
        block = render_context_block(discover_context_files(cwd), cwd)
        if block:
            sections.append(
                "The user's project instructions follow. Follow them unless they conflict with the task.\n" + block
            )
    return "\n\n".join(sections)


def with_handover_notes(system_prompt: str, notes: str | None) -> str:
    """Append handover notes after the unchanged prefix."""
    if not notes:
        return system_prompt
    return f"{system_prompt}\n\n<handover_notes>\n{notes.strip()}\n</handover_notes>"
