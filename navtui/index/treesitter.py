"""Definitions through tree-sitter, when the optional ``tree-sitter-language-pack`` is installed.

Only a guard and a generic walk: any failure falls back to the regular expressions.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from navtui.index.model import Symbol
from navtui.index.symbols_regex import assign_parents

# tree-sitter node types that define something, by the kind the index records.
_KINDS = {
    "function_declaration": "function",
    "function_definition": "function",
    "function_item": "function",
    "generator_function_declaration": "function",
    "method_definition": "method",
    "method_declaration": "method",
    "constructor_declaration": "method",
    "class_declaration": "class",
    "class_specifier": "class",
    "interface_declaration": "interface",
    "enum_declaration": "enum",
    "enum_item": "enum",
    "struct_item": "struct",
    "struct_specifier": "struct",
    "trait_item": "trait",
    "impl_item": "impl",
    "type_spec": "type",
    "mod_item": "module",
}
_LANGUAGES = {"javascript", "typescript", "go", "rust", "java", "csharp", "c", "cpp", "ruby", "php", "kotlin"}


@cache
def _parser(language: str) -> Any | None:
    try:
        from tree_sitter_language_pack import get_parser
    except ImportError:
        return None
    try:
        return get_parser(language)
    except Exception:  # an unknown grammar name: use the regular expressions
        return None


def available(language: str) -> bool:
    return language in _LANGUAGES and _parser(language) is not None


def _name(node: Any) -> str | None:
    target = node.child_by_field_name("name") or node.child_by_field_name("type")
    if target is None:
        declarator = node.child_by_field_name("declarator")
        while declarator is not None and declarator.child_by_field_name("declarator") is not None:
            declarator = declarator.child_by_field_name("declarator")
        target = declarator
    return target.text.decode("utf-8", "replace") if target is not None and target.text else None


def tree_sitter_symbols(language: str, text: str) -> list[Symbol] | None:
    """The definitions of ``text``, or None when tree-sitter is not installed or cannot parse it."""
    parser = _parser(language) if language in _LANGUAGES else None
    if parser is None:
        return None
    try:
        tree = parser.parse(text.encode("utf-8"))
        found: list[Symbol] = []
        stack = [tree.root_node]
        while stack:
            node = stack.pop()
            kind = _KINDS.get(node.type)
            if kind and (name := _name(node)):
                found.append(Symbol(name[:200], kind, node.start_point[0] + 1, node.end_point[0] + 1))
            stack.extend(reversed(node.children))
        return assign_parents(found)
    except Exception:  # a grammar/binding mismatch must never break indexing
        return None
