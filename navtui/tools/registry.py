"""The standard tool set and the context tools run in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from navtui.tools.approval import ApprovalPolicy, Approver
from navtui.tools.base import Tool, ToolContext, ToolRegistry
from navtui.tools.files.edit import EditTool
from navtui.tools.files.filestate import FileStateTracker
from navtui.tools.files.listing import LsTool
from navtui.tools.files.read import ReadTool
from navtui.tools.files.search import FindTool, GrepTool
from navtui.tools.files.workspace import Workspace
from navtui.tools.files.write import WriteTool
from navtui.tools.sandbox.policy import SandboxPolicy, policy_from_settings
from navtui.tools.shell.jobs import JobRegistry
from navtui.tools.shell.shell import ShellStatusTool, ShellTool

CORE_TOOLS = ("read", "write", "edit", "shell", "ls")  # what a 2k-4k window can afford (docs/providers.md)


def index_tools(cwd: Path | None) -> list[Tool[Any]]:
    """code_search and symbols, offered only where an index exists (they cost ~1.2k characters a request)."""
    if cwd is None:
        return []
    from navtui.index.store import index_path, index_root

    if not index_path(index_root(cwd)).is_file():
        return []
    from navtui.tools.files.code_search import CodeSearchTool, SymbolsTool

    return [CodeSearchTool(), SymbolsTool()]


def default_tools(settings: Any = None, cwd: Path | None = None) -> ToolRegistry:
    """read, write, edit, shell, shell_status, ls, find, grep, then code_search/symbols when ``cwd`` has an index.

    Tools listed in ``tools.deny`` are still offered (the policy refuses them with a clear message).
    """
    tools: list[Tool[Any]] = [
        ReadTool(),
        WriteTool(),
        EditTool(),
        ShellTool(),
        ShellStatusTool(),
        LsTool(),
        FindTool(),
        GrepTool(),
        *index_tools(cwd),
    ]
    return ToolRegistry(tools)


def make_context(
    cwd: Path,
    settings: Any = None,
    artifacts_dir: Path | None = None,
    *,
    policy: ApprovalPolicy | None = None,
    approver: Approver | None = None,
    sandbox: SandboxPolicy | None = None,
) -> ToolContext:
    """A fresh context: workspace (cwd plus ``tools.extra_roots``), file-state tracker, job registry, and the
    sandbox policy of the ``sandbox`` settings (unless ``sandbox`` is given).

    Pass the session's ``policy`` so ``ctx.approval`` is the very object ``/approval`` changes, and its
    ``approver`` so a sandbox-blocked command can ask to run again unconfined.
    """
    cwd = Path(cwd).resolve()
    tool_settings = getattr(settings, "tools", None)
    roots = [cwd / Path(root).expanduser() for root in getattr(tool_settings, "extra_roots", [])]
    if artifacts_dir is None:
        from navtui.config.paths import navtui_home

        artifacts_dir = navtui_home() / "artifacts"
    workspace = Workspace(cwd, roots)
    if sandbox is None:
        sandbox = policy_from_settings(settings, workspace.roots)
    return ToolContext(
        workspace=workspace,
        file_state=FileStateTracker(),
        jobs=JobRegistry(),
        artifacts_dir=Path(artifacts_dir),
        settings=settings,
        approval=policy or (ApprovalPolicy.from_settings(settings) if settings is not None else None),
        sandbox=sandbox,
        approver=approver,
    )
