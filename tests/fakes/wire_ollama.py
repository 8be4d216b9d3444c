"""Ollama native API: NDJSON `/api/chat`, plus `/api/tags`, `/api/show`, `/api/ps`, `/api/pull` (NDJSON progress),
`/api/version`, `/api/embed`."""

from __future__ import annotations

import hashlib
import json
import math
import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .script import Garbage, HttpError, RawBytes, RawLine, Step, Text, Thinking, ToolCall
from .stream import Encoder, Reply, play
from .wire_http import Connection, RecordedRequest

if TYPE_CHECKING:
    from .server import FakeModel, FakeServer

EMBED_DIM = 64
_DONE_REASONS = {"stop": "stop", "length": "length", "tool_use": "stop"}
_GO_DURATION = re.compile(r"[-+]?(0|((\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)")


def keep_alive_problem(value: Any) -> str | None:
    """What Ollama's ``api.Duration`` says of a ``keep_alive``: a number of seconds, or a Go duration string
    (``time.ParseDuration``: ``"10m"``, ``"-1h"``, ``"0"``; ``"-1"`` has no unit and is refused)."""
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return None
    if not isinstance(value, str):
        return f"Unsupported type: '{type(value).__name__}'"
    if _GO_DURATION.fullmatch(value):
        return None
    if re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)", value):
        return f'time: missing unit in duration "{value}"'
    return f'time: invalid duration "{value}"'


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def qualified_name(model: str) -> str:
    """`qwen2.5:7b` -> `registry.ollama.ai/library/qwen2.5:7b`, as Ollama names models in errors."""
    name = model if ":" in model.rsplit("/", 1)[-1] else f"{model}:latest"
    parts = name.split("/")
    if len(parts) >= 3 or (len(parts) == 2 and "." in parts[0]):
        return name
    return "registry.ollama.ai/" + ("library/" + name if len(parts) == 1 else name)


class OllamaEncoder(Encoder):
    stream_content_type = "application/x-ndjson"

    def __init__(self, reply: Reply) -> None:
        super().__init__(reply)
        self._calls = 0

    def error_body(self, err: HttpError) -> Any:
        return {"error": err.message}

    def _line(self, obj: dict[str, Any]) -> bytes:
        return json.dumps(obj).encode() + b"\n"

    def _message_chunk(self, **message: Any) -> bytes:
        msg = {"role": "assistant", "content": "", **message}
        return self._line({"model": self.reply.model, "created_at": _now(), "message": msg, "done": False})

    def _call(self, step: ToolCall) -> dict[str, Any]:
        args: Any = step.raw_arguments if step.raw_arguments is not None else step.arguments
        function = {"index": self._calls, "name": step.name, "arguments": args}
        self._calls += 1
        return {"id": step.id, "function": function} if step.id is not None else {"function": function}

    def frames(self, step: Step) -> bytes:
        if isinstance(step, Text):
            return self._message_chunk(content=step.text)
        if isinstance(step, Thinking):
            return self._message_chunk(thinking=step.text)
        if isinstance(step, ToolCall):
            return self._message_chunk(tool_calls=[self._call(step)])
        if isinstance(step, Garbage):
            return step.text.encode() + b"\n"
        if isinstance(step, RawLine):
            return step.line.encode() + b"\n"
        if isinstance(step, RawBytes):
            return step.data
        return b""

    def error_frames(self, err: HttpError) -> bytes:
        return self._line({"error": err.message})

    def _final(self) -> dict[str, Any]:
        usage = self.reply.usage
        out: dict[str, Any] = {
            "done_reason": _DONE_REASONS.get(self.reply.stop, self.reply.stop),
            "done": True,
            "total_duration": 1_000_000 + usage.input * 1_000_000 + usage.output * 20_000_000,
            "load_duration": 1_000_000,
        }
        # Ollama marks every metric omitempty: a zero count is absent from the wire.
        if usage.input:
            out |= {"prompt_eval_count": usage.input, "prompt_eval_duration": usage.input * 1_000_000}
        if usage.output:
            out |= {"eval_count": usage.output, "eval_duration": usage.output * 20_000_000}
        return out

    def close(self) -> bytes:
        msg = {"role": "assistant", "content": ""}
        return self._line({"model": self.reply.model, "created_at": _now(), "message": msg, **self._final()})

    def complete(self, steps: tuple[Step, ...]) -> Any:
        msg: dict[str, Any] = {
            "role": "assistant",
            "content": "".join(s.text for s in steps if isinstance(s, Text)),
        }
        thinking = "".join(s.text for s in steps if isinstance(s, Thinking))
        if thinking:
            msg["thinking"] = thinking
        calls = [self._call(s) for s in steps if isinstance(s, ToolCall)]
        if calls:
            msg["tool_calls"] = calls
        return {"model": self.reply.model, "created_at": _now(), "message": msg, **self._final()}


async def chat(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    body = req.json
    if not isinstance(body, dict):
        msg = "missing request body" if not req.body else "invalid character in request body"
        await conn.send_json(400, {"error": msg}, keep_alive=req.keep_alive)
        return req.keep_alive
    bad_keep_alive = keep_alive_problem(body.get("keep_alive"))
    if bad_keep_alive:  # the request does not decode (gin's ShouldBindJSON)
        await conn.send_json(400, {"error": bad_keep_alive}, keep_alive=req.keep_alive)
        return req.keep_alive
    name = body.get("model")
    if not name:
        await conn.send_json(400, {"error": "model is required"}, keep_alive=req.keep_alive)
        return req.keep_alive
    model = server.model_for(name)
    problem = _tools_problem(body.get("tools")) or _capability_problem(name, body, model, explicit=server.has_models)
    if problem:
        await conn.send_json(400, {"error": problem}, keep_alive=req.keep_alive)
        return req.keep_alive
    too_big = _memory_problem(body, model)
    if too_big:  # the scheduler refuses to load it: nothing is loaded
        await conn.send_json(500, {"error": too_big}, keep_alive=req.keep_alive)
        return req.keep_alive
    if server.load(name) and server.load_delay:
        await conn.sleep(server.load_delay)  # a cold model: Ollama loads it before anything else
    if not body.get("messages"):
        # Ollama answers an empty chat by loading the model, without generating.
        load = {
            "model": name,
            "created_at": _now(),
            "message": {"role": "assistant", "content": ""},
            "done_reason": "load",
            "done": True,
        }
        await conn.send_json(200, load, keep_alive=req.keep_alive)
        return req.keep_alive
    reply = server.next_reply(req)
    return await play(conn, OllamaEncoder(reply), body.get("stream", True) is not False, req.keep_alive)


def _memory_problem(body: dict[str, Any], model: FakeModel | None) -> str | None:
    """Ollama's answer when the model with the asked ``num_ctx`` would not fit in memory (4 GiB of weights, and
    a KV cache growing with the window, against what ``fits_num_ctx`` leaves)."""
    if model is None or model.fits_num_ctx is None:
        return None
    options = body.get("options") if isinstance(body.get("options"), dict) else {}
    num_ctx = int(options.get("num_ctx") or 4096)
    if num_ctx <= model.fits_num_ctx:
        return None
    needed, available = 4 + num_ctx / 8192, 4 + model.fits_num_ctx / 8192
    return f"model requires more system memory ({needed:.1f} GiB) than is available ({available:.1f} GiB)"


def _tools_problem(tools: Any) -> str | None:
    """What Ollama's request decoding says of a tool whose parameters do not fit its Go types
    (``api.ToolFunctionParameters``: ``properties`` a map of properties, ``required`` a list of strings)."""
    field = (
        "json: cannot unmarshal {} into Go struct field ToolFunctionParameters.tools.function.parameters.{} of type {}"
    )
    kinds = {list: "array", str: "string", dict: "object", bool: "bool", int: "number", float: "number"}
    for tool in tools if isinstance(tools, list) else []:
        parameters = (tool.get("function") or {}).get("parameters") if isinstance(tool, dict) else None
        if not isinstance(parameters, dict):
            continue
        properties, required = parameters.get("properties"), parameters.get("required")
        if properties is not None and not isinstance(properties, dict):
            return field.format(kinds.get(type(properties), "value"), "properties", "map[string]api.ToolProperty")
        if required is not None and not (isinstance(required, list) and all(isinstance(r, str) for r in required)):
            return field.format(kinds.get(type(required), "value"), "required", "[]string")
    return None


def _capability_problem(name: str, body: dict[str, Any], model: FakeModel | None, explicit: bool) -> str | None:
    if model is None:
        return None
    if body.get("tools") and "tools" not in model.capabilities:
        return f"{qualified_name(name)} does not support tools"
    think = body.get("think")
    if explicit and think not in (None, False) and "thinking" not in model.capabilities:
        return f"{json.dumps(name)} does not support thinking"
    return None


def _details(model: FakeModel) -> dict[str, Any]:
    return {
        "parent_model": "",
        "format": "gguf",
        "family": model.family,
        "families": [model.family],
        "parameter_size": model.parameter_size,
        "quantization_level": model.quantization_level,
    }


def _digest(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()


async def tags(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    models = [
        {
            "name": m.name,
            "model": m.name,
            "modified_at": _now(),
            "size": 4_683_087_332,
            "digest": _digest(m.name),
            "details": _details(m),
            "capabilities": list(m.capabilities),
        }
        for m in server.models
    ]
    await conn.send_json(200, {"models": models}, keep_alive=req.keep_alive)
    return req.keep_alive


async def root(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    await conn.send(200, b"Ollama is running", "text/plain; charset=utf-8", keep_alive=req.keep_alive)
    return req.keep_alive


async def ps(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    models = [
        {
            "name": m.name,
            "model": m.name,
            "size": 5_000_000_000,
            "digest": _digest(m.name),
            "details": _details(m),
            "expires_at": "2099-01-01T00:00:00Z",
            "size_vram": 0,
            "context_length": m.context_length,
        }
        for m in server.loaded
    ]
    await conn.send_json(200, {"models": models}, keep_alive=req.keep_alive)
    return req.keep_alive


async def _not_found(conn: Connection, req: RecordedRequest, name: str) -> bool:
    await conn.send_json(404, {"error": f"model '{name}' not found"}, keep_alive=req.keep_alive)
    return req.keep_alive


async def show(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    name = req.model or ""
    model = server.model_for(name)
    if model is None:
        return await _not_found(conn, req, name)
    server.note_model(name)
    arch = model.family
    body = {
        "license": "",
        "modelfile": f"# Modelfile generated by the navtui fake\nFROM {name}\n",
        "parameters": model.parameters,
        "template": "{{ .Prompt }}",
        "details": _details(model),
        "model_info": {
            "general.architecture": arch,
            "general.parameter_count": 7_615_616_512,
            f"{arch}.context_length": model.context_length,
            f"{arch}.embedding_length": 3584,
        },
        "capabilities": list(model.capabilities),
        "modified_at": _now(),
    }
    await conn.send_json(200, body, keep_alive=req.keep_alive)
    return req.keep_alive


async def pull(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    """Ollama's pull stream: manifest, a layer's progress, a small layer, digest check, manifest, success.
    A model the fake cannot pull gets Ollama's answer for an unknown name: HTTP 200 and an error line."""
    body = req.json if isinstance(req.json, dict) else {}
    name = str(body.get("model") or body.get("name") or "")
    spec = server.pullable(name)
    await conn.start_stream(200, "application/x-ndjson", keep_alive=req.keep_alive)

    async def line(obj: dict[str, Any], delay: float = 0.0) -> None:
        if delay:
            await conn.sleep(delay)
        await conn.write_chunk(json.dumps(obj).encode() + b"\n")

    await line({"status": "pulling manifest"})
    if spec is None:
        await line({"error": "pull model manifest: file does not exist"})
    else:
        layer = "sha256:" + _digest(name)
        for step in range(spec.steps + 1):
            done = spec.size * step // spec.steps
            await line(
                {"status": f"pulling {layer[7:19]}", "digest": layer, "total": spec.size, "completed": done}, spec.delay
            )
        small = "sha256:" + _digest(name + "/params")
        await line({"status": f"pulling {small[7:19]}", "digest": small, "total": 487, "completed": 487})
        for status in ("verifying sha256 digest", "writing manifest", "success"):
            await line({"status": status}, spec.delay)
        server.set_model(name, loaded=False)  # installed, not yet in memory
    await conn.end_stream()
    return req.keep_alive


async def version(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    await conn.send_json(200, {"version": server.ollama_version}, keep_alive=req.keep_alive)
    return req.keep_alive


def fake_embedding(text: str, dim: int = EMBED_DIM) -> list[float]:
    """A deterministic unit vector derived from the text's hash."""
    raw = b"".join(hashlib.sha256(f"{i}:{text}".encode()).digest() for i in range(-(-dim // 32)))
    values = [(b - 127.5) / 127.5 for b in raw[:dim]]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


async def embed(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    body = req.json if isinstance(req.json, dict) else {}
    name = req.model or ""
    if not name:
        await conn.send_json(400, {"error": "model is required"}, keep_alive=req.keep_alive)
        return req.keep_alive
    if server.model_for(name) is None:
        return await _not_found(conn, req, name)
    raw = body.get("input", [])
    inputs = [raw] if isinstance(raw, str) else [str(x) for x in raw]
    dim = body.get("dimensions") or EMBED_DIM
    out = {
        "model": name,
        "embeddings": [fake_embedding(t, int(dim)) for t in inputs],
        "total_duration": 1_000_000,
        "load_duration": 100_000,
        "prompt_eval_count": sum(max(1, len(t) // 4) for t in inputs),
    }
    await conn.send_json(200, out, keep_alive=req.keep_alive)
    return req.keep_alive
