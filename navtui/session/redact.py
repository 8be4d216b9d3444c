"""Mask secrets before a session line reaches the disk.

High-specificity key shapes (Anthropic, OpenAI, GitHub, AWS, Slack, Google, PEM private keys, long bearer
tokens) plus the literal values of secret-looking environment variables. Only what is written is masked:
the running conversation keeps what the user typed. Thinking signatures and image data are never touched
(they are opaque blobs a provider must get back unchanged).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from typing import Any

MASK = "****"

_SHAPES: list[tuple[str, str]] = [
    # (pattern, replacement) — the replacement keeps the recognisable prefix so a reader knows what was there.
    (r"sk-ant-[A-Za-z0-9_\-]{16,}", "sk-ant-" + MASK),
    (r"(?<![A-Za-z0-9_\-])sk-(?:proj-|svcacct-|or-v1-)?[A-Za-z0-9_\-]{20,}", "sk-" + MASK),
    (r"\bgh[pousr]_[A-Za-z0-9]{30,}", "gh_" + MASK),
    (r"\bgithub_pat_[A-Za-z0-9_]{30,}", "github_pat_" + MASK),
    (r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", "AKIA" + MASK),
    (r"\bxox[abposr]-[A-Za-z0-9\-]{10,}", "xox-" + MASK),
    (r"\bAIza[0-9A-Za-z_\-]{35}", "AIza" + MASK),
    (r"\b(?i:bearer)[ \t]+[A-Za-z0-9._~+/\-]{24,}=*", "Bearer " + MASK),
    (
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
        "-----BEGIN PRIVATE KEY----- " + MASK + " -----END PRIVATE KEY-----",
    ),
]
_COMPILED = [(re.compile(pattern), replacement) for pattern, replacement in _SHAPES]
_ANY_SHAPE = re.compile("|".join(f"(?:{pattern})" for pattern, _ in _SHAPES))

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


@lru_cache(maxsize=8)
def _literal_pattern(values: tuple[str, ...]) -> re.Pattern[str] | None:
    if not values:
        return None
    return re.compile("|".join(re.escape(value) for value in values))


def mask_text(text: str, literals: tuple[str, ...] | None = None) -> str:
    """``text`` with every secret-shaped substring (and every known secret value) masked."""
    literal = _literal_pattern(env_secrets() if literals is None else literals)
    if literal is not None:
        text = literal.sub(MASK, text)
    if _ANY_SHAPE.search(text) is None:
        return text
    for pattern, replacement in _COMPILED:
        text = pattern.sub(replacement, text)
    return text


def might_hold_secret(serialized: str, literals: tuple[str, ...]) -> bool:
    """A cheap check on a whole serialized line before walking its values."""
    literal = _literal_pattern(literals)
    return _ANY_SHAPE.search(serialized) is not None or (literal is not None and literal.search(serialized) is not None)


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
