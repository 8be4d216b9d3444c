"""Languages the index knows: file extensions and the regular expressions that find their definitions.

The patterns are anchored at line starts and deliberately simple: they find the common shapes of a
definition, and ``symbols_regex`` decides where each one ends (braces, indentation or headings).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

BlockStyle = Literal["braces", "indent", "sections"]


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    kind: str = ""  # empty: the pattern's ``kind`` group names it
    member: bool = False  # only a definition inside a container (a method pattern would match calls elsewhere)
    needs_body: bool = False  # only a definition followed by ``{`` (prototypes and calls end with ``;``)


@dataclass(frozen=True)
class Language:
    name: str
    rules: tuple[Rule, ...] = ()
    blocks: BlockStyle = "braces"
    comment_prefixes: tuple[str, ...] = ("//", "/*", "*", "#")
    multichar_single_quotes: bool = False  # JS/PHP/shell strings, not C/Rust/Java character literals


def _r(pattern: str, kind: str = "", *, member: bool = False, needs_body: bool = False) -> Rule:
    return Rule(re.compile(pattern, re.MULTILINE), kind, member, needs_body)


_WS = r"[ \t]"
_JS_ID = r"[A-Za-z_$][\w$]*"
_JS_KEYWORDS = r"(?!(?:if|for|while|switch|catch|function|return|with|else|do|new|typeof|await|yield)\b)"
_CLIKE_MODS = (
    r"(?:(?:public|private|protected|internal|static|final|abstract|synchronized|native|override|virtual|async|"
    r"sealed|extern|unsafe|new|default|strictfp|partial|readonly|open|data|inner|inline|const|constexpr|"
    r"explicit|friend)" + _WS + r"+)*"
)
_NOT_STATEMENT = r"(?!(?:return|new|else|throw|case|await|yield|goto|using|delete|if|for|while|switch|catch)\b)"

_JS_RULES = (
    _r(
        rf"^{_WS}*(?:export{_WS}+)?(?:default{_WS}+)?(?:declare{_WS}+)?(?:abstract{_WS}+)?class{_WS}+(?P<name>{_JS_ID})",
        "class",
    ),
    _r(
        rf"^{_WS}*(?:export{_WS}+)?(?:default{_WS}+)?(?:declare{_WS}+)?(?:async{_WS}+)?function\b{_WS}*\*?{_WS}*(?P<name>{_JS_ID})",
        "function",
    ),
    _r(
        rf"^{_WS}*(?:export{_WS}+)?(?:const|let|var){_WS}+(?P<name>{_JS_ID}){_WS}*(?::[^=\n]+)?={_WS}*(?:async{_WS}+)?"
        rf"(?:function\b|\([^)\n]*\){_WS}*(?::[^=\n]+)?=>|\([^)\n]*$|{_JS_ID}{_WS}*=>)",
        "function",
    ),
    _r(rf"^{_WS}*(?:export{_WS}+)?(?:declare{_WS}+)?interface{_WS}+(?P<name>{_JS_ID})", "interface"),
    _r(rf"^{_WS}*(?:export{_WS}+)?(?:declare{_WS}+)?type{_WS}+(?P<name>{_JS_ID}){_WS}*(?:<[^>\n]*>)?{_WS}*=", "type"),
    _r(rf"^{_WS}*(?:export{_WS}+)?(?:declare{_WS}+)?(?:const{_WS}+)?enum{_WS}+(?P<name>{_JS_ID})", "enum"),
    _r(
        rf"^{_WS}+(?:(?:public|private|protected|static|readonly|async|override|abstract|get|set){_WS}+)*{_JS_KEYWORDS}"
        rf"(?P<name>#?{_JS_ID}){_WS}*(?:<[^>\n]*>)?\([^)\n]*\)?{_WS}*(?::[^{{;\n]+)?\{{{_WS}*$",
        "method",
        member=True,
    ),
)

_GO_RULES = (
    _r(
        rf"^func{_WS}*\({_WS}*\w*{_WS}*\*?{_WS}*(?P<parent>\w+)(?:\[[^\]\n]*\])?{_WS}*\){_WS}*(?P<name>\w+)",
        "method",
    ),
    _r(rf"^func{_WS}+(?P<name>\w+)", "function"),
    _r(rf"^type{_WS}+(?P<name>\w+)(?:\[[^\]\n]*\])?{_WS}+(?P<kind>struct|interface)\b"),
    _r(rf"^type{_WS}+(?P<name>\w+)", "type"),
)

_RUST_VIS = rf"(?:pub(?:\([^)\n]*\))?{_WS}+)?"
_RUST_RULES = (
    _r(
        rf"^{_WS}*{_RUST_VIS}(?:(?:const|async|unsafe|extern(?:{_WS}+\"[^\"\n]*\")?){_WS}+)*fn{_WS}+(?P<name>\w+)",
        "function",
    ),
    _r(rf"^{_WS}*{_RUST_VIS}(?P<kind>struct|enum|union){_WS}+(?P<name>\w+)"),
    _r(rf"^{_WS}*{_RUST_VIS}(?:unsafe{_WS}+)?(?P<kind>trait){_WS}+(?P<name>\w+)"),
    _r(
        rf"^{_WS}*(?:unsafe{_WS}+)?impl\b(?:{_WS}*<[^{{\n]*?>)?{_WS}+(?:[^{{\n]*?{_WS}for{_WS}+)?(?:[\w]+::)*(?P<name>\w+)",
        "impl",
    ),
    _r(rf"^{_WS}*{_RUST_VIS}mod{_WS}+(?P<name>\w+){_WS}*\{{", "module"),
    _r(rf"^{_WS}*{_RUST_VIS}type{_WS}+(?P<name>\w+)", "type"),
)

_TYPE_DECL = (
    rf"^{_WS}*{_CLIKE_MODS}(?:@\w+{_WS}+)*(?P<kind>class|interface|enum|record|struct|object){_WS}+(?P<name>\w+)"
)
_JAVA_RULES = (
    _r(_TYPE_DECL),
    _r(
        rf"^{_WS}+{_CLIKE_MODS}(?:<[^>\n]+>{_WS}+)?{_NOT_STATEMENT}[\w.\[\]?]+(?:<[^;\n]*?>)?(?:\[\])*{_WS}+"
        rf"(?P<name>\w+){_WS}*\([^;\n]*$",
        "method",
        member=True,
        needs_body=True,
    ),
    _r(
        rf"^{_WS}+(?:(?:public|private|protected|internal){_WS}+)+(?P<name>\w+){_WS}*\([^;\n]*$",
        "method",
        member=True,
        needs_body=True,
    ),
)
_KOTLIN_RULES = (
    _r(_TYPE_DECL),
    _r(
        rf"^{_WS}*{_CLIKE_MODS}(?:suspend{_WS}+|operator{_WS}+|infix{_WS}+|tailrec{_WS}+)*fun{_WS}+"
        rf"(?:<[^>\n]+>{_WS}*)?(?:[\w.]+\.)?(?P<name>\w+)",
        "function",
    ),
)
_SWIFT_RULES = (
    _r(
        rf"^{_WS}*(?:(?:public|private|fileprivate|internal|open|final|static|class|override|mutating|@\w+){_WS}+)*"
        rf"(?P<kind>class|struct|enum|protocol|extension|actor){_WS}+(?P<name>\w+)"
    ),
    _r(
        rf"^{_WS}*(?:(?:public|private|fileprivate|internal|open|final|static|class|override|mutating|@\w+){_WS}+)*"
        rf"func{_WS}+(?P<name>\w+)",
        "function",
    ),
)

_C_RULES = (
    _r(rf"^{_WS}*(?:template{_WS}*<[^>\n]*>{_WS}*)?(?P<kind>class|struct|union|namespace){_WS}+(?P<name>\w+)[^;\n]*$"),
    _r(rf"^{_WS}*(?:typedef{_WS}+)?enum(?:{_WS}+class)?{_WS}+(?P<name>\w+)[^;\n]*$", "enum"),
    _r(
        rf"^{_NOT_STATEMENT}(?!typedef\b)(?:[A-Za-z_][\w:<>,]*[ \t*&]+){{0,6}}(?P<name>[A-Za-z_~][\w:~]*){_WS}*"
        rf"\((?:[^;\n]*\){_WS}*(?:const{_WS}*)?(?:noexcept{_WS}*)?(?:override{_WS}*)?\{{?|[^;)\n]*,?){_WS}*$",
        "function",
        needs_body=True,
    ),
)

_RUBY_RULES = (
    _r(rf"^{_WS}*def{_WS}+(?:self\.)?(?P<name>[\w?!=]+)", "function"),
    _r(rf"^{_WS}*(?P<kind>class|module){_WS}+(?:[\w]+::)*(?P<name>\w+)"),
)
_PHP_RULES = (
    _r(rf"^{_WS}*(?:(?:abstract|final|readonly){_WS}+)*(?P<kind>class|interface|trait|enum){_WS}+(?P<name>\w+)"),
    _r(
        rf"^{_WS}*(?:(?:public|private|protected|static|abstract|final){_WS}+)*function{_WS}+&?(?P<name>\w+)",
        "function",
    ),
)
_SHELL_RULES = (
    _r(rf"^{_WS}*function{_WS}+(?P<name>[\w.:-]+)", "function"),
    _r(rf"^{_WS}*(?P<name>[\w.:-]+){_WS}*\(\){_WS}*\{{?", "function"),
)
_PYTHON_RULES = (  # used only when ``ast`` cannot parse the file
    _r(rf"^{_WS}*(?:async{_WS}+)?def{_WS}+(?P<name>\w+)", "function"),
    _r(rf"^{_WS}*class{_WS}+(?P<name>\w+)", "class"),
)

PYTHON = Language("python", _PYTHON_RULES, "indent", ("#",))
MARKDOWN = Language("markdown", (), "sections", ())
TEXT = Language("text", (), "braces", ())
_JS = Language("javascript", _JS_RULES, multichar_single_quotes=True)
_TS = Language("typescript", _JS_RULES, multichar_single_quotes=True)

_BY_EXTENSION: dict[str, Language] = {
    "py": PYTHON,
    "pyi": PYTHON,
    "js": _JS,
    "jsx": _JS,
    "mjs": _JS,
    "cjs": _JS,
    "ts": _TS,
    "tsx": _TS,
    "mts": _TS,
    "cts": _TS,
    "go": Language("go", _GO_RULES),
    "rs": Language("rust", _RUST_RULES),
    "java": Language("java", _JAVA_RULES),
    "cs": Language("csharp", _JAVA_RULES),
    "kt": Language("kotlin", _KOTLIN_RULES),
    "kts": Language("kotlin", _KOTLIN_RULES),
    "swift": Language("swift", _SWIFT_RULES),
    "c": Language("c", _C_RULES),
    "h": Language("c", _C_RULES),
    "cc": Language("cpp", _C_RULES),
    "cpp": Language("cpp", _C_RULES),
    "cxx": Language("cpp", _C_RULES),
    "hpp": Language("cpp", _C_RULES),
    "hh": Language("cpp", _C_RULES),
    "rb": Language("ruby", _RUBY_RULES, "indent", ("#",)),
    "php": Language("php", _PHP_RULES, multichar_single_quotes=True),
    "sh": Language("shell", _SHELL_RULES, comment_prefixes=("#",), multichar_single_quotes=True),
    "bash": Language("shell", _SHELL_RULES, comment_prefixes=("#",), multichar_single_quotes=True),
    "zsh": Language("shell", _SHELL_RULES, comment_prefixes=("#",), multichar_single_quotes=True),
    "md": MARKDOWN,
    "markdown": MARKDOWN,
    "mdx": MARKDOWN,
}


def language_for(rel_path: str) -> Language:
    """The language of a file by its extension (``TEXT`` for everything unknown)."""
    name = rel_path.rsplit("/", 1)[-1]
    _, dot, ext = name.rpartition(".")
    return _BY_EXTENSION.get(ext.lower(), TEXT) if dot else TEXT
