"""The files a request asks to change, read from its words (the asked-files and claim checks both ask)."""

from __future__ import annotations

import re

_CHANGE_VERBS = r"add|append|insert|change|update|fix|modify|edit|replace|remove|rename|set|refactor|implement"
_CHANGES = re.compile(rf"\b(?:{_CHANGE_VERBS})\b", re.I)
# "fix main.py to use it": a file right after the verb is what it changes; the other files of the clause are
# where things are ("The function in helpers.py is called format_money: fix main.py to use it").
# "make main.py pass excited=True": a file right after "make" is changed too (the eval's param_through; the 1.5B
# changed greeting.py only, said main.py was updated, and nothing asked it for main.py). Only right after it:
# "make sure the tests in test_a.py pass" changes no file.
_DIRECT = re.compile(rf"\b(?:{_CHANGE_VERBS}|make)\s+(?:the\s+file\s+)?[`'\"]?([\w./-]+\.\w+)", re.I)
_NEGATION = re.compile(r"\b(?:do not|don't|never|without|leave|keep)\b", re.I)
_TARGET = re.compile(r"\b(?:to|in|into|inside)\s+[`'\"]?([\w./-]+\.\w+)", re.I)
_CLAUSES = re.compile(r"[.;!?](?:\s|$)|\bthen\b|,\s*and\s|\n", re.I)


def change_targets(prompt: str) -> list[str]:
    """The files a request asks to change, as written: "add ... to X", "in X, change ...", "fix X" (then only X of
    its clause), not "do not change X"."""
    words = re.sub(r"\([^()]*\)", " ", prompt.split("<attached_file", 1)[0])
    out: list[str] = []
    for clause in _CLAUSES.split(words):
        direct = _DIRECT.findall(clause)
        if not (direct or _CHANGES.search(clause)) or _NEGATION.search(clause):
            continue
        for path in direct or _TARGET.findall(clause):
            if ".." not in path and path not in out:
                out.append(path)
    return out
