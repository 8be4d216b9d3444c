"""Text that is not UTF-8: one representation inside navtui, and the steps that must be total over it.

navtui holds text as ``str``. A byte that is not valid UTF-8 (in a file name, a command's output, a file's
content) is decoded where it enters with ``surrogateescape``: each such byte becomes one code point in
U+DC80-U+DCFF, Python's own convention for file names (``os.listdir``, ``sys.argv``), so a name read from the
disk opens the same file again and the byte can be written back as it was. A server's JSON may also carry other
lone surrogates (``"\\ud800"``); they are kept as they came.

A lone surrogate cannot be encoded as UTF-8, so every step that turns text into bytes or sizes it goes through
one of these (nothing else may call ``.encode("utf-8")`` on untrusted text):

* ``utf8_size``: byte sizes and token estimates;
* ``json_text``: JSON that is valid UTF-8 and inert on a terminal (session lines, ``--json``, exports): lone
  surrogates, C1 controls and the other characters ``display_safe`` replaces are written as ``\\uXXXX`` escapes,
  which ``json.loads`` reads back to the very same ``str``;
* ``for_wire``: what is sent to a model server (lone surrogates become U+FFFD: no server takes them);
* ``encode_file_text``: a file's bytes; escaped bytes go back as they were, any other lone surrogate is refused;
* ``display_safe`` (``core/display.py``): what reaches a terminal shows an escaped byte as ``\\x9b``.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
_NOT_ESCAPED_BYTE = re.compile("[\ud800-\udc7f\udd00-\udfff]")  # a lone surrogate surrogateescape cannot encode
# In JSON text: what a terminal would act on or cannot be sent, beyond the C0 controls json.dumps escapes itself.
_JSON_ESCAPE = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

REPLACEMENT = "\ufffd"


def decode_bytes(data: bytes) -> str:
    """Bytes from the outside as navtui's text: UTF-8, each byte that is not UTF-8 kept as U+DC80+byte."""
    return data.decode("utf-8", "surrogateescape")


def utf8_size(text: str) -> int:
    """The UTF-8 size of ``text``; a lone surrogate counts as the 3 bytes it would take."""
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return len(text.encode("utf-8", "surrogatepass"))


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_text(value: Any, **kwargs: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **kwargs)``, valid UTF-8 and inert on a terminal.

    Such characters can only occur inside JSON strings, where a ``\\uXXXX`` escape means the same character.
    """
    text = json.dumps(value, ensure_ascii=False, **kwargs)
    return _JSON_ESCAPE.sub(_escape, text) if _JSON_ESCAPE.search(text) else text


def for_wire(value: Any) -> Any:
    """``value`` (str, list, dict of them) with every lone surrogate replaced by U+FFFD; the same object when
    there is none (one regex scan per string)."""
    if isinstance(value, str):
        return _SURROGATE.sub(REPLACEMENT, value) if _SURROGATE.search(value) else value
    if isinstance(value, dict):
        cleaned = {key: for_wire(item) for key, item in value.items()}
        return value if all(cleaned[key] is value[key] for key in value) else cleaned
    if isinstance(value, list | tuple):
        items = [for_wire(item) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    return value


class NotEncodable(ValueError):
    """Text holding a lone surrogate that stands for no byte (not from ``surrogateescape``)."""


def encode_file_text(text: str) -> bytes:
    """A file's bytes: UTF-8, with each escaped byte (U+DC80-U+DCFF) written back as the byte it stands for."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        match = _NOT_ESCAPED_BYTE.search(text)
        if match is not None:
            raise NotEncodable(
                f"the text holds U+{ord(match.group()):04X}, half of a UTF-16 surrogate pair, at character "
                f"{match.start()}: it is no character and cannot be written to a file"
            ) from None
        return text.encode("utf-8", "surrogateescape")
