"""Large images are stored beside the sessions by hash and come back for the model."""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path

from navtui.core.messages import ImageBlock, TextBlock, UserMessage
from navtui.session.blobs import BLOB_PREFIX, blobs_dir
from navtui.session.manager import SessionManager


def _image(size: int) -> tuple[bytes, str]:
    raw = os.urandom(size)
    return raw, base64.b64encode(raw).decode()


def test_a_large_image_is_stored_by_hash_and_resolved_in_the_context(
    session: SessionManager, navtui_home: Path
) -> None:
    raw, data = _image(4096)
    session.append_message(UserMessage(content=[TextBlock(text="look"), ImageBlock(data=data, mime_type="image/png")]))
    digest = hashlib.sha256(raw).hexdigest()
    text = session.path.read_text()
    assert data not in text and f"{BLOB_PREFIX}{digest}" in text
    assert (blobs_dir() / digest).read_bytes() == raw
    assert blobs_dir().is_relative_to(navtui_home)
    reopened = SessionManager.open(session.path)
    image = reopened.build_context().messages[0].content[1]
    assert isinstance(image, ImageBlock) and image.data == data


def test_small_images_stay_inline(session: SessionManager) -> None:
    _, data = _image(100)
    session.append_message(UserMessage(content=[ImageBlock(data=data)]))
    assert data in session.path.read_text()


def test_a_missing_blob_becomes_a_note_not_a_broken_image(session: SessionManager) -> None:
    raw, data = _image(4096)
    session.append_custom_message("screenshot", [ImageBlock(data=data)])
    (blobs_dir() / hashlib.sha256(raw).hexdigest()).unlink()
    message = SessionManager.open(session.path).build_context().messages[0]
    assert isinstance(message.content[0], TextBlock) and "image not available" in message.content[0].text
