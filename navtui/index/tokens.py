"""Identifier splitting and query terms: ``parseArgs``, ``parse_args`` and "parse args" meet in the index."""

from __future__ import annotations

import re

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Acronym before a capitalised word (HTTPServer -> HTTP, Server), words, acronyms, digit runs.
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_WORD = re.compile(r"[^\W_]+(?:_[^\W_]+)*|[^\W_]+")

_STOPWORDS_WORDS = """a an and are as at be but by can could do does did for from had has have how i if in into is it its
    me my no not of on or our please should so some than that the their them then there these this those to
    up us was we were what when where which while who why will with would you your want need make let lets
    find show tell look see use using get"""
STOPWORDS = frozenset(_STOPWORDS_WORDS.split())


def split_identifier(word: str) -> list[str]:
    """``HTTPServer2_config`` -> ``["http", "server", "2", "config"]`` (lower case)."""
    return [part.lower() for part in _PART.findall(word)]


def identifier_terms(text: str) -> str:
    """The parts of every compound identifier in ``text``, for the index's extra column.

    Each distinct compound appears once: the raw text column already carries the frequencies.
    """
    seen: set[str] = set()
    out: list[str] = []
    for word in _IDENTIFIER.findall(text):
        if word in seen:
            continue
        seen.add(word)
        parts = split_identifier(word)
        if len(parts) > 1:
            out.extend(parts)
    return " ".join(out)


def normalize_name(name: str) -> str:
    """The form symbol lookup compares: ``parse_args``, ``parseArgs`` and ``parse-args`` meet."""
    return name.lower().replace("_", "").replace("-", "").replace(" ", "")


def query_groups(query: str) -> list[list[str]]:
    """One group per query word: the whole word (lower case), then its parts when it is a compound identifier.

    Stop words are dropped unless nothing else is left, so natural-language prompts search on their content words.
    """
    groups: list[list[str]] = []
    for word in _WORD.findall(query):
        whole = word.lower()
        parts = list(dict.fromkeys(split_identifier(word)))
        group = [whole, *parts] if len(parts) > 1 else [whole]
        if group not in groups:
            groups.append(group)
    content = [g for g in groups if g[0] not in STOPWORDS and len(g[0]) > 1]
    return content or groups


def query_terms(query: str) -> list[str]:
    """The distinct terms of every group, in order (for highlighting and for the any-term query)."""
    terms: list[str] = []
    for group in query_groups(query):
        terms.extend(term for term in group if term not in terms)
    return terms


def _quoted(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def fts_query(terms: list[str]) -> str:
    """An FTS5 MATCH expression: any of the terms, each quoted so no term is read as an operator."""
    return " OR ".join(_quoted(term) for term in terms)


def fts_all_query(groups: list[list[str]]) -> str:
    """Every word must match, either whole or as all of its parts: ``"parseargs" OR ("parse" AND "args")``."""
    clauses = []
    for whole, *parts in groups:
        if parts:
            clauses.append(f"({_quoted(whole)} OR ({' AND '.join(_quoted(p) for p in parts)}))")
        else:
            clauses.append(_quoted(whole))
    return " AND ".join(clauses)
