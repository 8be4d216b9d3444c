"""Mask secrets before a session line reaches the disk.

High-specificity key shapes (Anthropic, OpenAI, GitHub, AWS, Slack, Google, PEM private keys, long bearer
tokens) plus the literal values of secret-looking environment variables. Only what is written is masked:
the running conversation keeps what the user typed. Thinking signatures and image data are never touched
(they are opaque blobs a provider must get back unchanged).
"""

from __future__ import annotations

import os
import re
from typing import Any

MASK = "****"

# (anchors, pattern, replacement): a pattern only runs when one of its literal anchors occurs, which keeps a
# 300 KB tool output fast to check. The replacement keeps the recognisable prefix.
_SHAPES: list[tuple[tuple[str, ...], str, str]] = [
    (("sk-ant-",), r"sk-ant-[A-Za-z0-9_\-]{16,}", "sk-ant-" + MASK),
    # No look-behind for "not inside a word" (it would cost the fast literal-prefix scan): see _replace.
    (("sk-",), r"sk-(?:proj-|svcacct-|or-v1-)?[A-Za-z0-9_\-]{20,}", "sk-" + MASK),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"gh[pousr]_[A-Za-z0-9]{30,}", "gh_" + MASK),
    (("github_pat_",), r"github_pat_[A-Za-z0-9_]{30,}", "github_pat_" + MASK),
    (("AKIA", "ASIA"), r"(?:AKIA|ASIA)[0-9A-Z]{16}\b", "AKIA" + MASK),
    (("xox",), r"xox[abposr]-[A-Za-z0-9\-]{10,}", "xox-" + MASK),
    (("AIza",), r"AIza[0-9A-Za-z_\-]{35}", "AIza" + MASK),
    (("earer", "EARER"), r"(?i:bearer)[ \t]+[A-Za-z0-9._~+/\-]{24,}=*", "Bearer " + MASK),
    (
        ("PRIVATE KEY-----",),
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
        "-----BEGIN PRIVATE KEY----- " + MASK + " -----END PRIVATE KEY-----",
    ),
]
_WORDISH = re.compile(r"[A-Za-z0-9_\-]")


def _replace(replacement: str) -> Any:
    """Mask a match unless it is glued to a preceding word ("task-..." or "risk-..." hold no key)."""

    def replace(match: re.Match[str]) -> str:
        start = match.start()
        if start and _WORDISH.match(match.string, start - 1):
            return match.group(0)
        return replacement

    return replace


_COMPILED = [(anchors, re.compile(pattern), _replace(replacement)) for anchors, pattern, replacement in _SHAPES]

_SECRET_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.IGNORECASE)
_MIN_SECRET_VALUE = 12
_OPAQUE_KEYS = frozenset({"thinkingSignature", "signature", "thoughtSignature", "encryptedContent"})


def env_secrets() -> tuple[str, ...]:
    """Values of environment variables whose names say they hold a secret (long enough to be one)."""
    values = {
        value
        for name, value in os.environ.items()
        if _SECRET_NAME.search(name) and len(value) >= _MIN_SECRET_VALUE and not value.startswith(("/", "~"))
    }
    return tuple(sorted(values, key=len, reverse=True))


def mask_text(text: str, literals: tuple[str, ...] | None = None) -> str:
    """``text`` with every secret-shaped substring (and every known secret value) masked."""
    for value in env_secrets() if literals is None else literals:
        if value in text:
            text = text.replace(value, MASK)
    for anchors, pattern, replacement in _COMPILED:
        if any(anchor in text for anchor in anchors):
            text = pattern.sub(replacement, text)
    return text


def might_hold_secret(serialized: str, literals: tuple[str, ...]) -> bool:
    """A cheap check on a whole serialized line before walking its values."""
    if any(value in serialized for value in literals):
        return True
    return any(
        any(anchor in serialized for anchor in anchors) and pattern.search(serialized) is not None
        for anchors, pattern, _ in _COMPILED
    )


def mask_value(value: Any, literals: tuple[str, ...]) -> Any:
    """A copy of a JSON value with secrets masked in every string (keys of opaque blobs skipped)."""
    if isinstance(value, str):
        return mask_text(value, literals)
    if isinstance(value, list):
        return [mask_value(item, literals) for item in value]
    if isinstance(value, dict):
        is_image = value.get("type") == "image"
        return {
            key: item if key in _OPAQUE_KEYS or (is_image and key == "data") else mask_value(item, literals)
            for key, item in value.items()
        }
    return value
