"""Helpers for the context-management tests: a small runtime stand-in, file tools, a routing fake server."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from navtui.agent.context_manager import ContextHooks
from navtui.agent.loop import Agent
from navtui.config.settings import Settings
from navtui.providers.base import Provider
from navtui.tools.approval import ApprovalPolicy
from navtui.tools.base import Tool, ToolContext, ToolRegistry, ToolResult
from navtui.tools.files.filestate import FileStateTracker
from navtui.tools.files.workspace import Workspace
from navtui.tools.shell.jobs import JobRegistry
from tests.fakes.script import Text
from tests.fakes.server import FakeServer
from tests.fakes.stream import Reply

SYSTEM = "You are a test agent working in a repository.\nUse the tools."


class PathArgs(BaseModel):
    path: str


class WriteArgs(BaseModel):
    path: str
    content: str


class ReadTool(Tool[PathArgs]):
    """Returns ``size`` characters of text for any path (the test decides how big outputs are)."""

    name = "read"
    description = "Read a file"
    Args = PathArgs

    def __init__(self, size: int = 200) -> None:
        self.size = size

    async def run(self, args: PathArgs, ctx: ToolContext) -> ToolResult:
        line = f"line of {args.path} "
        return ToolResult(text=(line * (self.size // len(line) + 1))[: self.size])


class WriteTool(Tool[WriteArgs]):
    name = "write"
    description = "Write a file"
    Args = WriteArgs
    tier = "write"

    async def run(self, args: WriteArgs, ctx: ToolContext) -> ToolResult:
        return ToolResult(text=f"wrote {len(args.content)} bytes to {args.path}")


@dataclass
class RuntimeStandIn:
    """What ContextHooks needs from the runtime (the real one builds providers and tools from settings)."""

    settings: Settings
    tools: ToolRegistry
    session: Any = None
    handover_count: int = 0
    agent: Any = None
    runs: list[Any] = field(default_factory=list)

    async def run(self, prompt: str | None) -> Any:
        async for event in self.agent.run(prompt):
            yield event

    async def check_provider(self) -> None:
        """The real one asks the provider for its window; the scripted provider has none to tell."""


def settings_with(**sections: dict[str, Any]) -> Settings:
    return Settings.model_validate(sections)


def build_agent(
    provider: Provider,
    tmp_path: Path,
    *,
    settings: Settings | None = None,
    session: Any = None,
    window: int | None = None,
    read_size: int = 200,
    messages: list[Any] | None = None,
    handover_notes: str | None = None,
) -> tuple[Agent, RuntimeStandIn]:
    registry = ToolRegistry([ReadTool(read_size), WriteTool()])
    runtime = RuntimeStandIn(settings or Settings(), registry, session)
    hooks = ContextHooks(runtime, handover_notes=handover_notes)
    ctx = ToolContext(
        workspace=Workspace(tmp_path),
        file_state=FileStateTracker(),
        jobs=JobRegistry(),
        artifacts_dir=tmp_path / "artifacts",
    )
    agent = Agent(
        provider,
        registry,
        ctx,
        system_prompt=SYSTEM,
        messages=messages,
        policy=ApprovalPolicy(mode="yolo"),
        recorder=session,
        context_window=window,
        hooks=hooks,
    )
    runtime.agent = agent
    return agent, runtime


async def collect(agent: Agent, prompt: str | None) -> list[Any]:
    return [event async for event in agent.run(prompt)]


def ollama_provider(server: FakeServer, model: str) -> Provider:
    from navtui.config.settings import ProviderSettings
    from navtui.providers.ollama import OllamaProvider

    return OllamaProvider(model, base_url=server.url, settings=ProviderSettings(max_retries=0, max_tokens=512))


def request_tokens(request: Any) -> int:
    """bytes/4 of a recorded request body: what the fake counts as the prompt."""
    return len(request.body) // 4


def is_summary_request(request: Any) -> bool:
    body = request.json if isinstance(request.json, dict) else {}
    return not body.get("tools") and "context checkpoints" in json.dumps(body.get("messages", [])[:1])


def bodies(server: FakeServer) -> list[dict[str, Any]]:
    return [r.json for r in server.chat_requests]


def is_notes_request(request: Any) -> bool:
    body = request.json if isinstance(request.json, dict) else {}
    messages = body.get("messages") or [{}]
    return "Your context is full" in str(messages[-1].get("content", ""))


NOTES = "Completed: read the modules.\nNext steps: edit src/m1.py.\nContext: tests live in tests/."


class RoutingServer(FakeServer):
    """A FakeServer that answers summarizer and handover-notes requests itself, so agent replies stay in order."""

    def __init__(
        self, summary: str = "## Goal\nKeep going.\n\n## Next Steps\n1. Continue.", notes: str = NOTES
    ) -> None:
        super().__init__()
        self.summary = summary
        self.notes = notes
        self.summaries = 0
        self.note_requests = 0

    def next_reply(self, req: Any) -> Reply:
        if is_summary_request(req):
            self.summaries += 1
            return self._reply(req, (Text(f"{self.summary} (#{self.summaries})"),))
        if is_notes_request(req):
            self.note_requests += 1
            return self._reply(req, (Text(self.notes),))
        return super().next_reply(req)

    @staticmethod
    def _reply(req: Any, steps: tuple[Any, ...]) -> Reply:
        req.reply = steps
        return Reply(req, steps, 0)
