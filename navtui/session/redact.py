"""Mask secrets before a session line reaches the disk.

The shapes and known values are ``navtui.core.secrets``'s (the same that errors and notices are masked with).
Only what is written is masked: the running conversation keeps what the user typed. Thinking signatures and
image data are never touched (they are opaque blobs a provider must get back unchanged).
"""

from __future__ import annotations

from typing import Any

from navtui.core.secrets import mask_secrets

_OPAQUE_KEYS = frozenset({"thinkingSignature", "signature", "thoughtSignature", "encryptedContent"})


def mask_value(value: Any, literals: tuple[str, ...]) -> Any:
    """A copy of a JSON value with secrets masked in every string (keys of opaque blobs skipped)."""
    if isinstance(value, str):
        return mask_secrets(value, literals)
    if isinstance(value, list):
        return [mask_value(item, literals) for item in value]
    if isinstance(value, dict):
        is_image = value.get("type") == "image"
        return {
            key: item if key in _OPAQUE_KEYS or (is_image and key == "data") else mask_value(item, literals)
            for key, item in value.items()
        }
    return value
