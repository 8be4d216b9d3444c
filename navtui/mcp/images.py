"""Which images an MCP server sends on to the model.

A tool result or a resource may hold an image; the model gets it as an attachment, and it then stays in the
conversation, sent again with every later request. A server can label anything an image (``image/svg+xml``,
``image/x-anything``, text or bytes that are no image, a wrong label, 50 MB): the providers refuse such a request
(400: a media type they do not take, data that does not match it, too large), and every later request of the
session then failed the same way. So an image is attached only when its bytes are a PNG, JPEG, GIF or WebP (the
types every provider takes; the type comes from the bytes, not the label) of at most ``MAX_IMAGE_BYTES`` and its
base64 is valid; otherwise the result says what it was and why the model does not see it.
"""

from __future__ import annotations

import base64
import binascii

from navtui.core.messages import ImageBlock

MAX_IMAGE_BYTES = 5 * 1024 * 1024  # the smallest of the providers' per-image limits (Anthropic's)
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_type(head: bytes) -> str | None:
    """The MIME type of the image whose first bytes are ``head``, among those every provider takes."""
    for magic, mime in _MAGIC:
        if head.startswith(magic):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def checked_image(data: str, label: str) -> tuple[ImageBlock | None, str]:
    """The attachment for base64 ``data`` a server labelled ``label``, or None and why the model will not see it."""
    if len(data) * 3 // 4 > MAX_IMAGE_BYTES:
        return None, f"larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MB"
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None, "its data is not valid base64"
    if len(raw) > MAX_IMAGE_BYTES:
        return None, f"larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MB"
    mime = image_type(raw[:16])
    if mime is None:
        return None, f"not a PNG, JPEG, GIF or WebP image ({label or 'no type'} given)"
    return ImageBlock(data=data, mime_type=mime), ""
