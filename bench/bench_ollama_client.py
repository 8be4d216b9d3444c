"""The Ollama provider's streaming path against the ``ollama`` SDK's public streaming API, on one fake server.

Issue 20 asked whether navtui should stream through ``ollama.AsyncClient.chat(stream=True)`` instead of reading
``/api/chat`` NDJSON itself. This measures both on the same unpaced 20,000-chunk reply from the fake Ollama
server (run in a child process, so its CPU is not counted): client CPU seconds and wall seconds per reply,
and what each path keeps of the request and the reply (tool-call ids, tool-parameter schema keywords).

    .venv/bin/python bench/bench_ollama_client.py [--chunks 20000] [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from navtui.core.events import TextDelta  # noqa: E402
from navtui.core.messages import ToolSpec, UserMessage  # noqa: E402
from navtui.providers.base import ChatRequest  # noqa: E402
from navtui.providers.ollama import OllamaProvider  # noqa: E402
from navtui.providers.ollama_convert import to_ollama_messages, to_ollama_tools  # noqa: E402

MODEL = "bench-model"

SERVER = """
import sys, time
sys.path.insert(0, {root!r})
from bench.common import make_markdown
from tests.fakes import FakeServer
server = FakeServer().start()
server.set_model({model!r}, context_length=32768)
text = make_markdown({chunks} * 4, seed=3)
for _ in range({replies}):
    server.script_stream(text, tokens_per_second=0, chunk_chars=4)
print(server.url, flush=True)
sys.stdin.read()
server.stop()
"""

TOOL = ToolSpec(
    name="read",
    description="Read a file",
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "file to read"},
            "offset": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}], "default": None},
        },
        "required": ["path"],
    },
)


async def navtui_path(url: str) -> int:
    provider = OllamaProvider(MODEL, url)
    request = ChatRequest(system="You are terse.", messages=[UserMessage(content="write")], tools=[TOOL])
    chars = 0
    async with contextlib.aclosing(provider.stream(request)) as events:
        async for event in events:
            if isinstance(event, TextDelta):
                chars += len(event.text)
    await provider.aclose()
    return chars


async def sdk_path(url: str) -> int:
    import ollama

    client = ollama.AsyncClient(host=url)
    messages = to_ollama_messages("You are terse.", [UserMessage(content="write")])
    chars = 0
    stream = await client.chat(
        model=MODEL, messages=messages, tools=to_ollama_tools([TOOL]), stream=True, options={"num_ctx": 32768}
    )
    async for part in stream:
        chars += len(part.message.content or "")
    await client._client.aclose()  # the SDK has no public close; only the benchmark reaches in
    return chars


async def raw_lines(url: str) -> int:
    """The transport alone (httpx lines + json.loads), the floor under both paths."""
    import httpx

    body = {
        "model": MODEL,
        "messages": to_ollama_messages("You are terse.", [UserMessage(content="write")]),
        "tools": to_ollama_tools([TOOL]),
        "stream": True,
        "options": {"num_ctx": 32768},
    }
    chars = 0
    async with (
        httpx.AsyncClient(base_url=url, timeout=None) as client,
        client.stream("POST", "/api/chat", json=body) as response,
    ):
        async for line in response.aiter_lines():
            if line:
                chars += len(json.loads(line).get("message", {}).get("content") or "")
    return chars


def sdk_keeps() -> dict[str, bool]:
    """What survives the SDK's request and response models."""
    from ollama._types import ChatResponse, Tool

    tool = Tool.model_validate(to_ollama_tools([TOOL])[0]).model_dump(exclude_none=True, by_alias=True)
    offset = tool["function"]["parameters"]["properties"]["offset"]
    reply = ChatResponse.model_validate(
        {
            "model": MODEL,
            "created_at": "2026-01-01T00:00:00Z",
            "done": False,
            "message": {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "call_1", "function": {"name": "read", "arguments": {}}}],
            },
        }
    )
    call = reply.message.tool_calls[0].model_dump()  # type: ignore[index]
    from ollama._types import Message

    result = Message.model_validate({"role": "tool", "content": "ok", "tool_call_id": "call_1"}).model_dump()
    return {
        "tool parameter 'anyOf'/'default' kept": "anyOf" in offset or "default" in offset,
        "tool-call id in the reply kept": "id" in call,
        "tool_call_id on a tool result kept": "tool_call_id" in result,
    }


async def measure(name: str, run: object, url: str, runs: int) -> tuple[list[float], list[float], int]:
    cpu: list[float] = []
    wall: list[float] = []
    chars = 0
    for _ in range(runs):
        c0, w0 = time.process_time(), time.perf_counter()
        chars = await run(url)  # type: ignore[operator]
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return cpu, wall, chars


def start_server(chunks: int, replies: int) -> tuple[subprocess.Popen[str], str]:
    code = SERVER.format(root=str(ROOT), model=MODEL, chunks=chunks, replies=replies)
    server = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    server, url = start_server(args.chunks, 3 * args.runs + 3)
    try:
        await navtui_path(url)  # warm-up: imports, /api/show, connections
        await sdk_path(url)
        await raw_lines(url)
        results = {}
        paths = (
            ("navtui provider (events)", navtui_path),
            ("ollama SDK chat(stream=True)", sdk_path),
            ("transport only (httpx+json)", raw_lines),
        )
        for name, run in paths:
            results[name] = await measure(name, run, url, args.runs)
    finally:
        if server.stdin is not None:
            server.stdin.close()
        server.wait(timeout=10)
    print(f"{args.chunks} chunks per reply, {args.runs} replies each, fake server in a child process")
    for name, (cpu, wall, chars) in results.items():
        print(
            f"  {name:30s} client CPU median {statistics.median(cpu):.3f} s (min {min(cpu):.3f})  "
            f"wall median {statistics.median(wall):.3f} s  ({chars} characters)"
        )
    navtui = statistics.median(results["navtui provider (events)"][0])
    sdk = statistics.median(results["ollama SDK chat(stream=True)"][0])
    floor = statistics.median(results["transport only (httpx+json)"][0])
    print(f"  the SDK's own parsing costs {sdk - floor:+.3f} s over the transport")
    print(
        f"  a provider on the SDK (navtui's event work on top): ~{navtui - floor + sdk:.3f} s vs {navtui:.3f} s today"
    )
    print("what the SDK's models keep:", json.dumps(sdk_keeps(), indent=2))


if __name__ == "__main__":
    asyncio.run(main())
