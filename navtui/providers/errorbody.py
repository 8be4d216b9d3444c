"""What an error response says, in words a user can read: the body of a failed request is not always the API's.

A proxy or gateway in front of the server (nginx, Cloudflare, a captive portal) answers with an HTML page; a
few gateways answer HTTP 200 with the API's JSON error object in place of a stream. Both used to reach the user
as they came: a screenful of markup in a retry notice, or a permanent error retried as a broken stream.
"""

from __future__ import annotations

import html
import re
from typing import Any

MESSAGE_LIMIT = 500
_TAGS = re.compile(r"<(script|style)\b.*?</\1\s*>|<[^>]*>", re.IGNORECASE | re.DOTALL)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_HEADING = re.compile(r"<h1[^>]*>(.*?)</h1\s*>", re.IGNORECASE | re.DOTALL)
# The status an error object's type stands for, when it came in a 200 (OpenAI's and Anthropic's type names).
_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "model_not_found": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "rate_limit_exceeded": 429,
    "insufficient_quota": 429,
    "api_error": 500,
    "server_error": 500,
    "overloaded_error": 529,
}


def is_html(text: str, content_type: str | None = None) -> bool:
    head = text.lstrip()[:100].lower()
    return "html" in (content_type or "").lower() or head.startswith(("<!doctype html", "<html"))


def readable(text: str, content_type: str | None = None) -> str:
    """``text`` as a one-line message: an HTML page becomes its title (or first heading, or its words) and says
    it was a page, anything else is cut to ``MESSAGE_LIMIT`` characters."""
    if not is_html(text, content_type):
        return text.strip()[:MESSAGE_LIMIT]
    found = _TITLE.search(text) or _HEADING.search(text)
    words = _TAGS.sub(" ", found.group(1) if found else text)
    words = " ".join(html.unescape(words).split())[:200] or "an empty page"
    return f"{words} (an HTML page: a proxy or gateway in front of the server answered, not the API)"


def error_status(error: Any) -> int | None:
    """The HTTP status a JSON error object stands for (its numeric ``code``, else its ``type`` or string ``code``)."""
    if not isinstance(error, dict):
        return None
    code = error.get("code")
    if isinstance(code, int) and 400 <= code <= 599:
        return code
    for key in ("code", "type"):
        status = _TYPE_STATUS.get(str(error.get(key) or ""))
        if status is not None:
            return status
    return None
