"""Approval policy: which calls run at once, which ask the user, which are refused.

Modes (omp approval-mode): ``ask`` prompts for write and exec, ``write`` prompts for exec, ``yolo`` never
prompts. Per-tool lists in settings override the mode; a destructive command (``danger``) or a change to a
protected path (``protected``) forces a prompt outside yolo, whatever the lists and "always" answers say.

This module is the policy as data (``ApprovalPolicy.decide``), the questions and answers (``ApprovalRequest``,
``ApprovalResponse``, ``Approver``) and the words of a refusal (``denial_message``); it imports nothing of the
tools. Applying it to one call of one tool is ``authorize`` (``tools/authorize.py``).

Command rules, as Claude Code writes them: ``shell(npm test:*)`` in ``tools.allow`` allows every shell command
that starts with the words ``npm test``, ``shell(make lint)`` that command exactly. A rule only ever matches a
simple command (no ``;``, ``&``, ``|``, redirection, ``$``, backquotes or newlines), so ``git status; rm -rf ~``
is never "a git status", and a destructive command still asks. The approval modal offers the rule for the
command's first words (``p``); the app saves it in the user's settings.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

ApprovalMode = Literal["ask", "write", "yolo"]
Tier = Literal["read", "write", "exec"]  # what a call does: read runs at once, write and exec may ask
Verdict = Literal["allow", "deny", "ask"]


@dataclass
class ApprovalRequest:
    tool: str
    tier: Tier
    summary: str  # the command, the path, ...
    reason: str  # why it needs a prompt
    preview: str | None = None  # a diff or the full command
    call_id: str = ""
    danger: bool = False  # a destructive command or a protected path forced this prompt
    title: str | None = None  # the prompt's heading when not "Allow <tool>?"
    unsandboxed: bool = False  # asks to run a command again outside the shell sandbox
    keep_change: bool = False  # asks whether to keep what a command did to protected files (undone meanwhile)
    rule: str | None = None  # a command rule the user may allow for good: "shell(npm test:*)"


@dataclass
class ApprovalResponse:
    approved: bool
    always: bool = False  # allow this tool for the rest of the session
    reason: str | None = None  # the user's words on a denial, passed to the model
    by_policy: bool = False  # refused by settings (tools.deny), not by a person
    rule: str | None = None  # the request's command rule, allowed for good (the app saves it in tools.allow)


class Approver(Protocol):
    async def request(self, request: ApprovalRequest) -> ApprovalResponse: ...


@dataclass
class Decision:
    verdict: Verdict
    reason: str = ""


@dataclass
class ApprovalPolicy:
    mode: ApprovalMode = "ask"
    allow: set[str] = field(default_factory=set)
    deny: set[str] = field(default_factory=set)
    prompt: set[str] = field(default_factory=set)
    session_allow: set[str] = field(default_factory=set)

    @classmethod
    def from_settings(cls, settings: Any) -> ApprovalPolicy:
        tools = settings.tools
        return cls(mode=settings.approval, allow=set(tools.allow), deny=set(tools.deny), prompt=set(tools.prompt))

    def decide(
        self, tool: str, tier: Tier, danger: str | None = None, note: str | None = None, command: str | None = None
    ) -> Decision:
        """The verdict for one call; ``note`` is the tool's own reason for a closer look (shown when asking);
        ``command``: a shell call's command, for the command rules."""
        if listed(tool, self.deny):
            return Decision("deny", f"{tool} is denied by the tools.deny setting")
        if danger and self.mode != "yolo":
            return Decision("ask", danger)
        if self.mode == "yolo":
            return Decision("allow")
        if listed(tool, self.prompt):
            return Decision("ask", note or f"{tool} is listed in tools.prompt")
        if listed(tool, self.allow) or tool in self.session_allow:
            return Decision("allow")
        if command is not None and rule_allows(self.allow | self.session_allow, tool, command):
            return Decision("allow")
        if tier == "exec":
            return Decision("ask", note or "runs a command")
        if tier == "write" and self.mode == "ask":
            return Decision("ask", note or "changes files")
        return Decision("allow")


def listed(tool: str, names: set[str]) -> bool:
    """``tool`` is named in a tools.allow/deny/prompt list, exactly or by a glob (``mcp__github__*``)."""
    return tool in names or any("*" in name and fnmatch.fnmatchcase(tool, name) for name in names)


_RULE = re.compile(r"^(?P<tool>[\w-]+)\((?P<words>[^()]+?)(?P<any>:\*)?\)$")
_NOT_SIMPLE = re.compile(r"[;&|<>$`\n\\(){}]")
_WORD = re.compile(r"^[A-Za-z0-9][\w.+-]*$")


def _simple(command: str) -> bool:
    return bool(command.strip()) and _NOT_SIMPLE.search(command) is None


def rule_allows(rules: set[str], tool: str, command: str) -> bool:
    """A rule ``tool(words:*)`` or ``tool(command)`` in ``rules`` allows this simple ``command``."""
    if not _simple(command):
        return False
    words = command.split()
    for rule in rules:
        found = _RULE.match(rule)
        if found is None or found["tool"] != tool:
            continue
        wanted = found["words"].split()
        if words == wanted or (found["any"] and words[: len(wanted)] == wanted):
            return True
    return False


def command_rule(tool: str, command: str) -> str | None:
    """The rule to offer for ``command``: its program and, when it has one, its sub-command (``git status``,
    ``npm test``, ``pytest``). None for a command no rule may cover (see ``rule_allows``)."""
    if not _simple(command):
        return None
    words = command.split()
    if not _WORD.match(words[0]):
        return None
    prefix = words[:2] if len(words) > 1 and _WORD.match(words[1]) and "/" not in words[1] else words[:1]
    return f"{tool}({' '.join(prefix)}:*)"


def allow_hint(tool: str) -> str:
    """How a user allows this tool in settings: its name, and for an MCP tool its whole server."""
    if tool.startswith("mcp__") and tool.count("__") >= 2:
        server = tool.split("__")[1]
        return f"add '{tool}' (or 'mcp__{server}__*') to tools.allow in settings"
    return f"add '{tool}' to tools.allow in settings"


class DenyingApprover:
    """For headless modes: a call that needs a prompt is refused with a message on how to allow it."""

    async def request(self, request: ApprovalRequest) -> ApprovalResponse:
        if request.keep_change:
            return ApprovalResponse(
                approved=False,
                reason="keeping it needs the user's approval and navtui is running without a prompt: the change "
                "stays undone; the user can make it themselves",
                by_policy=True,
            )
        if request.unsandboxed:
            return ApprovalResponse(
                approved=False,
                reason="running it without the sandbox needs approval and navtui is running without a prompt: "
                "re-run navtui with --sandbox off (or set sandbox.mode) to run commands without the sandbox",
                by_policy=True,
            )
        if request.danger:
            how = "navtui always asks before this outside yolo mode; re-run with --approval yolo only if you mean it"
        elif request.tier == "exec":
            how = f"re-run with --approval yolo, or {allow_hint(request.tool)}"
        else:
            how = f"re-run with --approval write (or yolo), or {allow_hint(request.tool)}"
        return ApprovalResponse(
            approved=False,
            reason=f"{request.tool} needs approval ({request.reason}) and navtui is running without a prompt: {how}.",
            by_policy=True,
        )


def denial_message(tool_name: str, response: ApprovalResponse) -> str:
    """The tool error the model reads after a refusal."""
    if response.by_policy:
        return f"Not run: {response.reason or f'{tool_name} is not allowed'}"
    said = (response.reason or "").strip()
    reason = f" Their reason: {said}{'' if said.endswith(('.', '!', '?')) else '.'}" if said else ""
    return f"The user denied this {tool_name} call.{reason} Do not retry it unchanged; adjust your approach."
