"""What a repository's own ``.navtui/settings.json`` may change: it may tighten permissions, never loosen them.

A model in write mode can write that file and a cloned repository can ship one, so the project layer is
untrusted. Every setting has one rule in ``PROJECT_RULES``, found by its dotted path (a dict-valued setting such
as ``model_roles`` is one entry for all its keys):

* ``Free``: a preference that grants nothing (the theme, context sizes); the project value wins as usual.
* ``UserOnly``: anything that widens what runs without asking, sends code or keys elsewhere, reaches outside the
  repository or starts a program. Ignored in a project file, with a warning naming the key and the user file.
* ``Stricter``: an ordered choice (loosest first); the project value counts only when it is at least as strict
  as the value from the user file (or the default). ``approval: ask`` over a user's ``write`` applies; ``yolo``
  over ``write`` is ignored with a warning.
* ``Added``: a list that only restricts (``tools.deny``); the project's entries are added to the user's, never
  replace them.
* ``SameEndpoint``: a model name (``model``, ``model_roles.*``). A project may pick any model the provider and
  endpoint the user configured serve; one that another provider or endpoint would serve (a cloud one instead of
  the local Ollama) is held back: the user is asked once in the app (remembered per repository,
  ``config/repo_approvals.py``), and ``--print``/``--json`` refuse to start, saying why and which flag to use.

A setting missing from the table is ignored in a project file (fail closed), and ``tests/config`` fails until it
is classified. To add a section (e.g. ``sandbox`` or ``mcp``), add one entry per field here:
``"sandbox.mode": Stricter(("off", "workspace-write", "read-only"))``, ``"sandbox.network": Stricter((True, False))``,
``"mcp.servers": UserOnly("starts programs")``.

No pydantic here: the first frame reads it too (``app/startup.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Free:
    """A preference: a project may set it."""


@dataclass(frozen=True)
class UserOnly:
    """Only the user may set it; ``why`` finishes the sentence "it would ..."."""

    why: str


@dataclass(frozen=True)
class Stricter:
    """An ordered choice, loosest first: a project may move it towards the end only."""

    order: tuple[Any, ...]

    def rank(self, value: Any) -> int | None:
        for position, candidate in enumerate(self.order):
            if candidate == value and type(candidate) is type(value):
                return position
        return None


@dataclass(frozen=True)
class Added:
    """A list whose entries only restrict: a project's entries join the user's."""


@dataclass(frozen=True)
class SameEndpoint:
    """A model name: a project may choose among the models of the user's provider and endpoint, never beyond."""


Rule = Free | UserOnly | Stricter | Added | SameEndpoint

Endpoint = tuple[str, str]  # (provider, base URL)


@dataclass(frozen=True)
class HeldModel:
    """A project's model choice that would move the conversation to another provider or endpoint."""

    path: str  # "model" or "model_roles.advisor"
    value: str
    endpoint: Endpoint  # where it would go
    user_endpoint: Endpoint  # where the user's own settings send it
    source: str  # the project file

    def describe(self) -> str:
        (provider, url), (user_provider, user_url) = self.endpoint, self.user_endpoint
        return (
            f"{self.source} sets {self.path} to '{self.value}', which would send your prompts and code to "
            f"{provider} at {url} instead of {user_provider} at {user_url}, the endpoint you configured"
        )


_ENDPOINT = UserOnly("send your code and keys to another endpoint")

PROJECT_RULES: dict[str, Rule] = {
    "base_url": _ENDPOINT,
    "api_key": _ENDPOINT,
    "provider": _ENDPOINT,
    "model": SameEndpoint(),
    "approval": Stricter(("yolo", "write", "ask")),
    "max_turns": Free(),
    "model_roles": SameEndpoint(),
    "providers.num_ctx_cap": Free(),
    "providers.keep_alive": Free(),
    "providers.think": Free(),
    "providers.tool_protocol": Free(),
    "providers.context_window": Free(),
    "providers.request_timeout": Free(),
    "providers.stall_timeout": Free(),
    "providers.max_retries": Free(),
    "providers.max_tokens": Free(),
    "providers.temperature": Free(),
    "providers.compact_prompt": Free(),
    "providers.request_fields": UserOnly("add fields to what navtui sends to the model (e.g. store: true)"),
    "tools.allow": UserOnly("let tools run without asking"),
    "tools.deny": Added(),
    "tools.prompt": Added(),
    "tools.extra_roots": UserOnly("let tools write outside the repository"),
    "tools.auto_attach": Free(),
    "tools.shell_wait_ms": Free(),
    "tools.shell_timeout": Free(),
    "tools.shell_env_passthrough": UserOnly("pass secret environment variables to commands the model runs"),
    "tools.artifacts_max_days": UserOnly("decide when files in your navtui home are deleted"),
    "tools.artifacts_max_mb": UserOnly("decide when files in your navtui home are deleted"),
    "sandbox.mode": Stricter(("off", "workspace-write", "read-only")),
    "sandbox.network": Stricter((True, False)),
    "sandbox.writable_roots": UserOnly("let commands write outside the repository"),
    "handover.enabled": Free(),
    "handover.threshold": Free(),
    "compaction.strategy": Free(),
    "compaction.reserve_tokens": Free(),
    "compaction.keep_recent_tokens": Free(),
    "compaction.unexpected_stop": Free(),
    "advisor.enabled": Free(),
    "advisor.sync_backlog": Free(),
    "index.inject": Free(),
    "index.embed_model": Free(),
    "index.max_file_bytes": Free(),
    "checkpoints.enabled": Stricter((False, True)),  # a project may ask for checkpoints, never turn them off
    "checkpoints.max_file_kb": UserOnly("decide what /undo can put back"),
    "checkpoints.max_files": UserOnly("decide what /undo can put back"),
    "mcp.startup_timeout": Free(),
    "mcp.call_timeout": Free(),
    # A repository's own servers are in its .mcp.json, behind the user's approval (navtui/mcp/trust.py).
    "mcp.tools": UserOnly("change which tools of your MCP servers are offered"),
    # The check runs as a shell call through approval and the sandbox, like any command the model runs: a
    # repository's command is asked about in ask/write mode and confined as usual, so it grants nothing.
    "agent.check_command": Free(),
    "agent.check_rounds": Free(),
    "ui.theme": Free(),
    "ui.double_escape_action": Free(),
    "ui.branch_summary": Free(),
    "ui.mounted_entries": Free(),
    "ui.notify": Free(),
    "ui.notify_after": Free(),
    "ui.local_echo": Free(),
}


def rule_for(path: str) -> Rule | None:
    """The rule for a dotted setting path: its own entry, else the nearest enclosing one, else ``None``."""
    parts = path.split(".")
    for end in range(len(parts), 0, -1):
        rule = PROJECT_RULES.get(".".join(parts[:end]))
        if rule is not None:
            return rule
    return None


def _lookup(data: dict[str, Any], path: str) -> Any:
    node: Any = data
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def stricter_value(rule: Stricter, lower: Any, value: Any) -> bool:
    """Whether ``value`` is at least as strict as ``lower`` (unknown values are never stricter)."""
    rank, lower_rank = rule.rank(value), rule.rank(lower)
    return rank is not None and (lower_rank is None or rank >= lower_rank)


@dataclass
class ProjectLayer:
    """A project file after the rules: what may be merged, what must be added to lists, and why keys were dropped."""

    allowed: dict[str, Any]
    additions: dict[str, list[Any]]
    warnings: list[str]
    held: list[HeldModel] = field(default_factory=list)


def filter_project(
    data: dict[str, Any],
    lower: dict[str, Any],
    *,
    source: str,
    user_file: str,
    known: set[str],
    endpoint: Callable[[str, str], Endpoint] | None = None,
) -> ProjectLayer:
    """Apply ``PROJECT_RULES`` to a project file's ``data``.

    ``lower`` holds the effective values below the project (defaults and the user file), ``known`` the dotted
    paths navtui has settings for (unknown ones are reported elsewhere and only dropped here). ``endpoint(path,
    model)`` is where a model named at ``path`` would be served under the user's own choices (``path`` ``""``:
    the user's own model); without it a project's model names are all held back.
    """
    layer = ProjectLayer({}, {}, [])
    where = f"set it in {user_file} if you mean it"

    def walk(node: dict[str, Any], prefix: str, out: dict[str, Any]) -> None:
        for key, value in node.items():
            path = prefix + key
            rule = PROJECT_RULES.get(path)
            if rule is None and isinstance(value, dict) and any(p.startswith(path + ".") for p in PROJECT_RULES):
                out[key] = {}
                walk(value, path + ".", out[key])
                if not out[key]:
                    del out[key]
                continue
            rule = rule or rule_for(path)
            if rule is None:
                if path in known:
                    layer.warnings.append(
                        f"{source}: '{path}' is ignored in a project file: navtui does not know whether a "
                        f"repository may change it ({where})"
                    )
                continue
            if isinstance(rule, Free):
                out[key] = value
            elif isinstance(rule, UserOnly):
                layer.warnings.append(
                    f"{source}: '{path}' is ignored in a project file: it would {rule.why}, and a repository may "
                    f"only tighten permissions ({where})"
                )
            elif isinstance(rule, Stricter):
                current = _lookup(lower, path)
                if stricter_value(rule, current, value):
                    out[key] = value
                else:
                    layer.warnings.append(
                        f"{source}: '{path}: {json.dumps(value)}' is ignored in a project file: it is looser than "
                        f"{json.dumps(current)}, and a repository may only make it stricter ({where})"
                    )
            elif isinstance(rule, SameEndpoint):
                same_endpoint(path, value, out, key)
            elif isinstance(value, list):  # Added
                layer.additions[path] = value
            else:
                out[key] = value  # not a list: validation reports the bad value with the file's name

    def same_endpoint(path: str, value: Any, out: dict[str, Any], key: str) -> None:
        if isinstance(value, dict):  # model_roles: each role on its own
            kept: dict[str, Any] = {}
            for role, name in value.items():
                same_endpoint(f"{path}.{role}", name, kept, role)
            if kept:
                out[key] = kept
            return
        if not isinstance(value, str) or not value:
            out[key] = value  # not a model name: validation reports the bad value with the file's name
            return
        user = endpoint("", "") if endpoint is not None else ("", "")
        target = endpoint(path, value) if endpoint is not None else ("?", "?")
        if target == user and endpoint is not None:
            out[key] = value
        else:
            layer.held.append(HeldModel(path, value, target, user, source))

    walk(data, "", layer.allowed)
    return layer
