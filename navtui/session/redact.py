"""Mask secrets before a session line reaches the disk.

The shapes and known values are ``navtui.core.secrets``'s (the same that errors and notices are masked with).
Only what is written is masked: the running conversation keeps what the user typed. Thinking signatures and
image data are never touched (they are opaque blobs a provider must get back unchanged).
"""

from __future__ import annotations

from typing import Any

from navtui.core.secrets import mask_secrets, might_hold_secret

_OPAQUE_KEYS = frozenset({"thinkingSignature", "signature", "thoughtSignature", "encryptedContent"})


def holds_secret(value: Any, literals: tuple[str, ...]) -> bool:
    """Whether ``mask_value`` may change ``value``: a string of it (the same ones ``mask_value`` masks) might hold a
    secret. Checked string by string, each with its own lines: a whole JSON line is one line to the line-by-line
    patterns (a 20,000-token answer took ~30 ms to check that way, on the UI loop), and a name-based pattern
    anchored at a line's start never matched a line inside an encoded string."""
    if isinstance(value, str):
        return might_hold_secret(value, literals)
    if isinstance(value, list):
        return any(holds_secret(item, literals) for item in value)
    if isinstance(value, dict):
        is_image = value.get("type") == "image"
        return any(
            holds_secret(item, literals)
            for key, item in value.items()
            if not (key in _OPAQUE_KEYS or (is_image and key == "data"))
        )
    return False


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
