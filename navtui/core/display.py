"""Untrusted text made fit for a terminal: control characters are shown, never interpreted.

Model answers, thinking, tool arguments and output, file contents and anything replayed from a session can
carry terminal escape sequences (``ESC ] 52`` writes the clipboard, ``ESC ] 0`` sets the window title,
``ESC [ 2 J`` clears the screen). Rich and Textual pass them to the terminal untouched, so every widget that
shows such text, and ``--print`` on a terminal, goes through ``display_safe`` first.

Characters are replaced one by one with visible stand-ins, so a user sees that something was there and the
result does not depend on how a stream was cut into chunks:

* C0 controls (except tab and newline) become Unicode control pictures: ESC is ``␛``, BEL ``␇``, NUL ``␀``;
  a CR that ends a line (CRLF) is dropped, a lone CR becomes ``␍``;
* DEL becomes ``␡``;
* C1 controls (U+0080-U+009F; U+009B is a one-byte CSI) and the bidirectional overrides that reorder what is
  shown (U+202A-U+202E, U+2066-U+2069, the "Trojan Source" characters) become ``\\x9b`` / ``\\u202e``;
* U+2028 and U+2029 (line and paragraph separators) become ``\\u2028`` / ``\\u2029``;
* lone surrogates, which no terminal can be sent: U+DC80-U+DCFF is how a byte that is not UTF-8 is held in
  navtui's text (``surrogateescape``, see ``core/text.py``) and is shown as that byte, ``\\x9b``; any other
  surrogate as ``\\ud800``. So the result always encodes as UTF-8.

The raw text stays what it was in the session file and in ``--json``: this is for display only.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _stand_in(code: int) -> str:
    if code < 0x20:
        return chr(0x2400 + code)  # the control pictures block mirrors C0 in order
    if code == 0x7F:
        return "\u2421"  # ␡
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8, held by surrogateescape: show the byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


_TABLE: dict[int, str] = {}  # the stand-ins met so far (a table of every one, ~2,100 with the surrogates: 0.26 MB)


def display_safe(text: str) -> str:
    """``text`` with every control character and escape introducer replaced by a visible stand-in.

    Tab and newline pass; CRLF becomes LF. Text without anything to replace is returned as it is (one regex
    scan), so calling this on every render is cheap.
    """
    if _UNSAFE.search(text) is None:
        return text
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    for char in set(_UNSAFE.findall(text)):
        code = ord(char)
        if code not in _TABLE:
            _TABLE[code] = _stand_in(code)
    return text.translate(_TABLE)


_SHOWN_BYTE = re.compile(r"\\x([89a-f][0-9a-f])")


def shown_byte_forms(text: str) -> list[str]:
    """What ``text`` may have been before ``display_safe`` showed a byte that is not UTF-8 as ``\\xff``: each such
    stand-in as that byte (held as ``surrogateescape`` does), then ``\\x80``-``\\x9f`` as the C1 characters they
    also stand for. Empty when ``text`` shows none. A text box (the prompt) can hold only the shown form."""
    if _SHOWN_BYTE.search(text) is None:
        return []
    as_bytes = _SHOWN_BYTE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), text)
    as_c1 = _SHOWN_BYTE.sub(lambda m: chr(n if (n := int(m.group(1), 16)) < 0xA0 else 0xDC00 + n), text)
    return [as_bytes] if as_c1 == as_bytes else [as_bytes, as_c1]


def has_unsafe(text: str) -> bool:
    """Whether ``display_safe`` would change ``text``."""
    return _UNSAFE.search(text) is not None
