"""A stdio MCP server written by hand (no SDK), whose answers can be of any size without holding them in memory.

Tools: ``big`` answers with a text of ``MCP_TEST_BIG_MB`` megabytes (default 200), written in 1 MB pieces, so the
server itself stays small; ``small`` answers ``fine``. ``MCP_TEST_BIG_NOTIFY=1`` sends a log notification that
large first, then the ``big`` answer's usual size of a small one (a message without an id). ``MCP_TEST_DIR`` gets
``pid``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

OUT = sys.stdout.buffer
MB = 1 << 20


def send(message: dict[str, object]) -> None:
    OUT.write(json.dumps(message).encode() + b"\n")
    OUT.flush()


def send_big(head: bytes, tail: bytes, size: int) -> None:
    """``head`` + ``size`` bytes of text + ``tail`` on one line, a megabyte at a time."""
    OUT.write(head)
    piece = b"x" * MB
    for _ in range(size // MB):
        OUT.write(piece)
    OUT.write(tail + b"\n")
    OUT.flush()


TOOLS = [
    {"name": "big", "description": "A huge answer.", "inputSchema": {"type": "object", "properties": {}}},
    {"name": "small", "description": "A small answer.", "inputSchema": {"type": "object", "properties": {}}},
]


def answer(request: dict[str, object]) -> None:
    method, rid, params = request.get("method"), request.get("id"), request.get("params") or {}
    assert isinstance(params, dict)
    if method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "big-answers", "version": "1"},
        }
        send({"jsonrpc": "2.0", "id": rid, "result": result})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
    elif method == "tools/call" and params.get("name") == "big":
        size = int(os.environ.get("MCP_TEST_BIG_MB", "200")) * MB
        if os.environ.get("MCP_TEST_BIG_NOTIFY"):
            send_big(
                b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"', b'"}}', size
            )
            send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "after the notice"}]}})
            return
        head = b'{"jsonrpc":"2.0","id":' + json.dumps(rid).encode() + b',"result":{"content":[{"type":"text","text":"'
        send_big(head, b'"}]}}', size)
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "fine"}]}})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no method {method}"}})


def main() -> None:
    Path(os.environ.get("MCP_TEST_DIR", "."), "pid").write_text(str(os.getpid()))
    for line in sys.stdin.buffer:
        if line.strip():
            answer(json.loads(line))


if __name__ == "__main__":
    main()
