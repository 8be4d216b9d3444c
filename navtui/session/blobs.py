"""Large images live beside the sessions, by content hash, so session lines stay small.

An image block whose base64 ``data`` is at least ``MIN_BLOB_CHARS`` long is written to
``<navtui_home>/blobs/<sha256 of the bytes>`` and its ``data`` becomes ``blob:sha256:<hash>`` (the same
reference pi and omp write). References are resolved back to base64 when the model's context is built.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from pathlib import Path
from typing import Any

from navtui.config.paths import navtui_home
from navtui.core.fs import atomic_write_bytes
from navtui.core.messages import ImageBlock, TextBlock

BLOB_PREFIX = "blob:sha256:"
MIN_BLOB_CHARS = 1024


def blobs_dir() -> Path:
    return navtui_home() / "blobs"


def put_blob(data: bytes) -> str:
    """Store ``data`` (once) and return its reference."""
    digest = hashlib.sha256(data).hexdigest()
    path = blobs_dir() / digest
    if not path.exists():
        atomic_write_bytes(path, data, mode=0o600)
    return BLOB_PREFIX + digest


def read_blob(reference: str) -> bytes | None:
    digest = reference.removeprefix(BLOB_PREFIX)
    if len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
        return None
    try:
        return (blobs_dir() / digest).read_bytes()
    except OSError:
        return None


def externalize(line: dict[str, Any]) -> dict[str, Any]:
    """The entry's JSON with large image data replaced by blob references (copied only where changed)."""
    if line.get("type") == "message":
        message = line.get("message")
        if isinstance(message, dict) and isinstance(message.get("content"), list):
            content = _externalize_blocks(message["content"])
            if content is not message["content"]:
                return {**line, "message": {**message, "content": content}}
    elif line.get("type") == "custom_message" and isinstance(line.get("content"), list):
        content = _externalize_blocks(line["content"])
        if content is not line["content"]:
            return {**line, "content": content}
    return line


def _externalize_blocks(blocks: list[Any]) -> list[Any]:
    changed = False
    out = []
    for block in blocks:
        data = block.get("data") if isinstance(block, dict) and block.get("type") == "image" else None
        if isinstance(data, str) and len(data) >= MIN_BLOB_CHARS and not data.startswith(BLOB_PREFIX):
            try:
                raw = base64.b64decode(data, validate=True)
            except (binascii.Error, ValueError):
                out.append(block)
                continue
            block = {**block, "data": put_blob(raw)}
            changed = True
        out.append(block)
    return out if changed else blocks


def resolve_blocks(blocks: list[Any]) -> list[Any]:
    """Content blocks with blob references turned back into base64 (a missing blob becomes a note)."""
    if not any(isinstance(b, ImageBlock) and b.data.startswith(BLOB_PREFIX) for b in blocks):
        return blocks
    out: list[Any] = []
    for block in blocks:
        if isinstance(block, ImageBlock) and block.data.startswith(BLOB_PREFIX):
            raw = read_blob(block.data)
            if raw is None:
                out.append(TextBlock(text=f"[image not available: {block.data} is missing from {blobs_dir()}]"))
                continue
            block = block.model_copy(update={"data": base64.b64encode(raw).decode("ascii")})
        out.append(block)
    return out
