"""Token estimates at bytes/4: a text's, and a message's as it is sent (its JSON)."""

from __future__ import annotations

import json
from typing import Any

from navtui.core.text import utf8_size


def estimate_text_tokens(text: str) -> int:
    return (utf8_size(text) + 3) // 4  # total: a byte that was not UTF-8 is a lone surrogate here


def estimate_message_tokens(message: Any) -> int:
    return estimate_text_tokens(json.dumps(message.to_json(), ensure_ascii=False)) + 4
