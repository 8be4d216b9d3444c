"""Secrets masked before text is shown or stored: key shapes, secret assignments, URL passwords, known values.

Used for every error, notice and warning (``NavtuiError``, the ``Notice``/``AgentError`` events, the transcript's
error and notice cards, ``--print``'s stderr) and for every line written to a session file
(``session/redact.py``). Two kinds of match:

* **known values**: the environment's provider keys (``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``, ...) and any
  variable whose name says it holds a secret (``*_TOKEN``, ``*PASSWORD*``, ...). A server that quotes the key in a
  401 body never gets it onto the screen.
* **shapes**: high-specificity key formats (Anthropic, OpenAI, GitHub, AWS access and secret keys, Slack, Google,
  PEM private keys, long bearer tokens, HTTP basic auth), passwords in URLs (``https://user:pw@host``), and
  secret-named assignments: ``DB_PASSWORD=...`` lines (``.env`` files, ``export``), quoted literals
  (``password = "..."``, ``"api_key": "..."``) and ``--password=...`` / ``?token=...`` in commands and URLs.
  Code that merely names a secret (``password=password``, ``password: str``) is left alone.

A pattern runs only where one of its literal anchors occurs (the name-based ones line by line, on the lines that
hold a name), which keeps a 300 KB tool output fast to check.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any

MASK = "****"

# A name that says it holds a secret: DB_PASSWORD, client_secret, GITHUB_TOKEN, aws_secret_access_key, apiKey ...
_NAME = (
    r"[A-Za-z0-9_.\-]*?(?:password|passwd|passphrase|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key"
    r"|credentials?|auth[_\-]?key)(?:[_\-]?(?:access[_\-]?key|key|value|hash|secret|token|string))?"
)
# Shapes found anywhere: (anchors, pattern, replacement). A pattern runs only when one of its anchors occurs.
_SHAPES: list[tuple[tuple[str, ...], str, str]] = [
    (("sk-ant-",), r"sk-ant-[A-Za-z0-9_\-]{16,}", "sk-ant-" + MASK),
    (("sk-",), r"sk-(?:proj-|svcacct-|or-v1-)?[A-Za-z0-9_\-]{20,}", "sk-" + MASK),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"gh[pousr]_[A-Za-z0-9]{30,}", "gh_" + MASK),
    (("github_pat_",), r"github_pat_[A-Za-z0-9_]{30,}", "github_pat_" + MASK),
    (("AKIA", "ASIA"), r"(?:AKIA|ASIA)[0-9A-Z]{16}\b", "AKIA" + MASK),
    (("xox",), r"xox[abposr]-[A-Za-z0-9\-]{10,}", "xox-" + MASK),
    (("AIza",), r"AIza[0-9A-Za-z_\-]{35}", "AIza" + MASK),
    (
        ("PRIVATE KEY-----",),
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
        "-----BEGIN PRIVATE KEY----- " + MASK + " -----END PRIVATE KEY-----",
    ),
]
# Shapes that need a case-insensitive name or some context run line by line, only on the lines that hold one of
# their (lower-case) anchors: a case-insensitive pattern over a whole 300 KB output costs tens of milliseconds.
_NAMES = ("pass", "secret", "token", "key", "credential")
# What the read and grep tools put before a file's line: "    12\t" or "path:12:".
_LINE_PREFIX = r"(?:[ \t]*\d+\t|[^\s:]+:\d+[:-])?"
_LINE_SHAPES: list[tuple[tuple[str, ...], str, str]] = [
    (("bearer",), r"(?i:bearer)[ \t]+[A-Za-z0-9._~+/\-]{24,}=*", "Bearer " + MASK),
    (("authorization",), r"(?i)(authorization:[ \t]*basic[ \t]+)[A-Za-z0-9+/]{8,}=*", r"\g<1>" + MASK),
    # AWS secret access keys: 40 characters after a name that says what they are.
    (
        ("secret",),
        r"(?i)((?:aws_?)?secret_?access_?key[\"']?\s*[:=]\s*[\"']?)[A-Za-z0-9/+]{40}",
        r"\g<1>" + MASK,
    ),
    # https://user:password@host
    (("://",), r"(\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s/:@\"'<>]+:)[^\s/@\"'<>]+(@)", r"\g<1>" + MASK + r"\g<2>"),
    # DB_PASSWORD=..., export API_TOKEN="...": an env-style line (no spaces around =, as a shell needs)
    (
        _NAMES,
        rf"(?i)^({_LINE_PREFIX}[ \t]*(?:export[ \t]+)?{_NAME}=)(?:\"[^\"\n]+\"|'[^'\n]+'|[^\s\"'#$(][^\n#(]*?)[ \t]*$",
        r"\g<1>" + MASK,
    ),
    # password = "hunter2", "api_key": "abc...", secret: 'x'  (a quoted literal, in code, JSON or YAML)
    (
        _NAMES,
        rf"(?i)(\b{_NAME}[\"']?[ \t]*(?::=|[:=])[ \t]*)([\"'])(?!\2)[^\"'\n]{{3,}}\2",
        r"\g<1>\g<2>" + MASK + r"\g<2>",
    ),
    # --password=x, ?token=x& in command lines and URLs
    (_NAMES, rf"(?i)((?:--|[?&;])(?:{_NAME})=)[^\s&;\"']+", r"\g<1>" + MASK),
    # password: hunter2 (YAML/INI) when the value holds a digit or a symbol: ``password: str`` is a type hint
    (
        _NAMES,
        rf"(?i)^({_LINE_PREFIX}[ \t]*{_NAME}[ \t]*:[ \t]+)(?=[^\s\"'(\[{{]*[0-9!@#$%^&*+/~-])[^\s\"'(\[{{]{{6,}}[ \t]*$",
        r"\g<1>" + MASK,
    ),
]
_WORDISH = re.compile(r"[A-Za-z0-9_\-]")
_GLUED = {"sk-ant-", "sk-", "gh_", "github_pat_", "AKIA", "xox-", "AIza"}  # prefixes that must not follow a word


def _replacement(replacement: str) -> Any:
    if not any(replacement.startswith(prefix) for prefix in _GLUED):
        return replacement

    def replace(match: re.Match[str]) -> str:
        # "task-..." or "risk-..." hold no key: a key shape glued to a preceding word is left alone.
        start = match.start()
        if start and _WORDISH.match(match.string, start - 1):
            return match.group(0)
        return replacement

    return replace


@functools.cache
def _compiled() -> list[tuple[tuple[str, ...], re.Pattern[str], Any]]:
    # Compiled on first use, not at import: the app's first frame imports this module and never masks.
    return [(anchors, re.compile(pattern), _replacement(replacement)) for anchors, pattern, replacement in _SHAPES]


@functools.cache
def _line_compiled() -> list[tuple[tuple[str, ...], re.Pattern[str], str]]:
    return [(anchors, re.compile(pattern), replacement) for anchors, pattern, replacement in _LINE_SHAPES]


_LINE_ANCHORS = tuple(sorted({anchor for anchors, _, _ in _LINE_SHAPES for anchor in anchors}))


def _candidate_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line that holds a line-pattern anchor, in order."""
    lowered = text.lower()
    starts: set[int] = set()
    for anchor in _LINE_ANCHORS:
        index = lowered.find(anchor)
        while index != -1:
            starts.add(text.rfind("\n", 0, index) + 1)
            end = text.find("\n", index)
            index = -1 if end == -1 else lowered.find(anchor, end)
    spans = []
    for start in sorted(starts):
        end = text.find("\n", start)
        spans.append((start, len(text) if end == -1 else end))
    return spans


def _line_patterns(line: str) -> list[tuple[re.Pattern[str], str]]:
    lowered = line.lower()
    return [(pattern, repl) for anchors, pattern, repl in _line_compiled() if any(a in lowered for a in anchors)]


_SECRET_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|(?:^|_)AUTH(?:_|$))", re.IGNORECASE)
_MIN_SECRET_VALUE = 8
# An API key is masked however short it is (a gateway's 7-character key came back in a 401 unmasked); below 5
# characters a value would mask ordinary words.
_KEY_NAME = re.compile(r"API_?KEY", re.IGNORECASE)
_MIN_KEY_VALUE = 5
_NOT_SECRET = re.compile(r"^(?:[/~.]|https?://|true$|false$|yes$|no$|[0-9]+$)", re.IGNORECASE)


def env_secrets() -> tuple[str, ...]:
    """Values of environment variables whose names say they hold a secret, longest first."""
    values = {
        value
        for name, value in os.environ.items()
        if _SECRET_NAME.search(name)
        and len(value) >= (_MIN_KEY_VALUE if _KEY_NAME.search(name) else _MIN_SECRET_VALUE)
        and not _NOT_SECRET.match(value)
    }
    return tuple(sorted(values, key=len, reverse=True))


def mask_secrets(text: str, literals: tuple[str, ...] | None = None) -> str:
    """``text`` with every known secret value and every secret-shaped substring masked.

    ``literals`` are the known values (default: ``env_secrets()``, read now); pass ``()`` for shapes only.
    """
    for value in env_secrets() if literals is None else literals:
        if value in text:
            text = text.replace(value, MASK)
    for anchors, pattern, replacement in _compiled():
        if any(anchor in text for anchor in anchors):
            text = pattern.sub(replacement, text)
    parts: list[str] = []
    position = 0
    for start, end in _candidate_lines(text):
        line = masked = text[start:end]
        for pattern, replacement in _line_patterns(line):
            masked = pattern.sub(replacement, masked)
        if masked != line:
            parts += [text[position:start], masked]
            position = end
    return "".join([*parts, text[position:]]) if parts else text


def might_hold_secret(text: str, literals: tuple[str, ...]) -> bool:
    """A cheap check before walking a structure's strings."""
    if any(value in text for value in literals):
        return True
    if any(any(a in text for a in anchors) and pattern.search(text) for anchors, pattern, _ in _compiled()):
        return True
    for start, end in _candidate_lines(text):
        line = text[start:end]
        if any(pattern.search(line) for pattern, _ in _line_patterns(line)):
            return True
    return False
