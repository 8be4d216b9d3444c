"""llama.cpp's own endpoints (`GET /props`, `POST /tokenize`) and LM Studio's `GET /api/v0/models/<model>`.

Answered only once a test described that server with `FakeServer.set_llamacpp(...)` or `set_lmstudio(...)`;
otherwise they are 404, as on any other server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .wire_http import Connection, RecordedRequest

if TYPE_CHECKING:
    from .server import FakeServer

CHARS_PER_TOKEN = 3  # the fake tokenizer: one token per three characters, so counts differ from bytes/4


async def props(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    facts = server.llamacpp
    if facts is None:
        await conn.send(404, b"File Not Found", "text/plain", keep_alive=req.keep_alive)
        return req.keep_alive
    body = {
        "default_generation_settings": {"n_ctx": facts.n_ctx, "params": {"n_predict": -1}},
        "total_slots": 1,
        "model_alias": facts.alias,
        "chat_template_caps": {"supports_tools": facts.supports_tools, "supports_tool_calls": facts.supports_tools},
        "modalities": {"vision": facts.vision, "audio": False},
        "build_info": "b0-fake",
    }
    await conn.send_json(200, body, keep_alive=req.keep_alive)
    return req.keep_alive


async def tokenize(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    body = req.json if isinstance(req.json, dict) else {}
    if server.llamacpp is None or not isinstance(body.get("content"), str):
        await conn.send(404, b"File Not Found", "text/plain", keep_alive=req.keep_alive)
        return req.keep_alive
    count = -(-len(body["content"]) // CHARS_PER_TOKEN)
    await conn.send_json(200, {"tokens": list(range(count))}, keep_alive=req.keep_alive)
    return req.keep_alive


async def lmstudio_model(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    name = req.path.removeprefix("/api/v0/models/")
    window = server.lmstudio.get(name)
    if window is None:
        await conn.send_json(404, {"error": f"Model '{name}' not found"}, keep_alive=req.keep_alive)
        return req.keep_alive
    body = {"id": name, "object": "model", "type": "llm", "state": "loaded", "max_context_length": window * 4,
            "loaded_context_length": window}  # fmt: skip
    await conn.send_json(200, body, keep_alive=req.keep_alive)
    return req.keep_alive
