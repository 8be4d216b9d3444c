"""The theme JSON format (omp 16 ``theme.md``) as pydantic models, and errors that name the JSON path and the fix."""

from __future__ import annotations

import difflib
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, create_model, field_validator
from pydantic_core import PydanticCustomError

from navtui.core.errors import ConfigError
from navtui.themes.palette import CSS_HEX_RE, normalise_hex
from navtui.themes.tokens import REQUIRED_TOKENS

COLOUR_FORMS = (
    'use "#RRGGBB" (or #RGB, #RGBA, #RRGGBBAA), a number 0-255 (xterm palette), a name from "vars", '
    'or "" for the terminal default'
)
_MAX_MISSING_LINES = 6
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
VAR_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*\Z")


class ThemeError(ConfigError):
    """A theme that cannot be used: one line per problem in ``issues``, each with its JSON path and the fix."""

    def __init__(self, message: str, *, issues: list[str] | None = None, hint: str | None = None) -> None:
        self.issues = list(issues or [])
        body = "\n".join(f"  {issue}" for issue in self.issues)
        super().__init__(f"{message}\n{body}" if body else message, hint=hint)

    @classmethod
    def invalid(cls, source: str, issues: list[str]) -> ThemeError:
        count = f"{len(issues)} problems" if len(issues) > 1 else "1 problem"
        return cls(f"{source}: not a valid theme ({count})", issues=issues)


def _show(value: object) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 40 else text[:37] + "..."


def _colour_error(reason: str) -> PydanticCustomError:
    # The reason goes through the context so braces in user values can't break the template.
    return PydanticCustomError("colour", "{reason}", {"reason": reason})


def _check_colour(value: object) -> str | int:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _colour_error(f"{_show(value)} is not a colour — {COLOUR_FORMS}")
    if isinstance(value, int):
        if not 0 <= value <= 255:
            raise _colour_error(f'{value} is out of range — use a number 0-255 (xterm palette) or "#RRGGBB"')
        return value
    if value.startswith("#"):
        if not CSS_HEX_RE.match(value):
            raise _colour_error(
                f'{_show(value)} is not a hex colour — write #RRGGBB (e.g. "#1e3a2a"), #RGB, #RGBA or #RRGGBBAA'
            )
        return normalise_hex(value)
    if value.startswith("$") and VAR_NAME_RE.match(value[1:]):
        raise _colour_error(
            f'{_show(value)}: "$name" references are for "export" only (as in omp) — write "{value[1:]}" here'
        )
    if value and not VAR_NAME_RE.match(value):
        raise _colour_error(f"{_show(value)} is neither a colour nor a variable name — {COLOUR_FORMS}")
    return value


def _check_export_colour(value: object) -> str | int:
    # omp's HTML export also takes "$name" for a variable.
    if isinstance(value, str) and value.startswith("$") and VAR_NAME_RE.match(value[1:]):
        return value
    return _check_colour(value)


ColourValue = Annotated[str | int, BeforeValidator(_check_colour)]
"""``#rrggbb``/``#rrggbbaa`` (lower-cased), an xterm index 0-255, a ``vars`` name, or ``""`` (terminal default)."""

ExportColourValue = Annotated[str | int, BeforeValidator(_check_export_colour)]
"""A colour of the ``export`` section: also ``"$name"`` for a variable, as omp allows there."""


class _ColoursBase(BaseModel):
    model_config = ConfigDict(extra="allow")
    # omp files carry a few extra tokens (``toolText``, ``link``); they are kept and checked like the rest.
    __pydantic_extra__: dict[str, ColourValue]


ThemeColours: type[_ColoursBase] = create_model(
    "ThemeColours",
    __base__=_ColoursBase,
    **{token: (ColourValue, ...) for token in REQUIRED_TOKENS},  # type: ignore[call-overload]
)
"""Every token of ``tokens.REQUIRED_TOKENS`` as a required field (the JSON key spelling)."""


class ThemeExport(BaseModel):
    """HTML-export colours; navtui also paints its screen with them (page = background, card = surface, info = panel)."""

    model_config = ConfigDict(extra="ignore")

    pageBg: ExportColourValue | None = None
    cardBg: ExportColourValue | None = None
    infoBg: ExportColourValue | None = None


class ThemeSymbols(BaseModel):
    model_config = ConfigDict(extra="ignore")

    preset: Literal["unicode", "nerd", "ascii"] | None = None
    overrides: dict[str, str] = Field(default_factory=dict)
    spinnerFrames: list[str] | dict[str, list[str]] | None = None

    @field_validator("spinnerFrames", mode="before")
    @classmethod
    def _frames(cls, value: Any) -> Any:
        def frames(item: Any) -> bool:
            return isinstance(item, list) and all(isinstance(frame, str) for frame in item)

        if value is None or frames(value):
            return value
        if isinstance(value, dict) and set(value) <= {"status", "activity"} and all(map(frames, value.values())):
            return value
        raise PydanticCustomError(
            "frames",
            "{reason}",
            {"reason": 'must be a list of strings or {"status": [...], "activity": [...]}'},
        )


class ThemeFile(BaseModel):
    """One theme JSON file as written (references not yet resolved)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    schema_url: str | None = Field(default=None, alias="$schema")
    name: str
    vars: dict[str, ColourValue] = Field(default_factory=dict)
    colors: ThemeColours
    export: ThemeExport | None = None
    symbols: ThemeSymbols | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not _NAME_RE.match(value):
            raise PydanticCustomError(
                "theme_name",
                "{reason}",
                {"reason": f'{_show(value)} — use letters, digits, "-", "_" or "." (e.g. "my-theme")'},
            )
        return value


def example_colour(token: str) -> str:
    """A plausible dark-theme value for ``token``, for 'missing' messages."""
    if token == "toolSuccessBg":
        return "#1e3a2a"
    if token == "toolErrorBg":
        return "#3a1e24"
    if token.endswith("Bg"):
        return "#1e2030"
    lowered = token.lower()
    for words, colour in (
        (("success", "added", "clean", "staged"), "#9ece6a"),
        (("error", "removed", "untracked"), "#f7768e"),
        (("warning", "dirty"), "#e0af68"),
        (("muted", "dim", "comment", "sep", "off", "context"), "#737aa2"),
    ):
        if any(word in lowered for word in words):
            return colour
    return "#c0caf5"


def _path(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(file)"


def _issue(error: Any, raw: Any) -> str:
    loc = tuple(error["loc"])
    path = _path(loc)
    kind = error["type"]
    if kind == "missing":
        return _missing(loc, raw)
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        if not loc:
            return '(file): must be a JSON object with "name" and "colors" (and optionally "vars", "export", "symbols")'
        return f"{path}: must be a JSON object, got {_show(error['input'])}"
    if kind in ("colour", "theme_name", "frames"):
        return f"{path}: {error['ctx']['reason']}"
    if kind == "literal_error":
        return f"{path}: {_show(error['input'])} — use one of {error['ctx']['expected']}"
    if kind == "string_type":
        return f"{path}: must be a string, got {_show(error['input'])}"
    return f"{path}: {error['msg']}"


def _missing(loc: tuple[int | str, ...], raw: Any) -> str:
    path = _path(loc)
    if loc == ("name",):
        return 'name: missing — add "name": "my-theme"'
    if loc == ("colors",):
        return f'colors: missing — add a "colors" object with all {len(REQUIRED_TOKENS)} tokens (see docs/themes.md)'
    token = str(loc[-1])
    message = f'{path}: missing — add a colour like "{example_colour(token)}"'
    if loc[0] == "colors" and isinstance(raw, dict) and isinstance(raw.get("colors"), dict):
        extras = [key for key in raw["colors"] if key not in REQUIRED_TOKENS]
        close = difflib.get_close_matches(token, extras, n=1, cutoff=0.8)
        if close:
            message += f' (is "{close[0]}" a misspelling of it?)'
    return message


def validation_issues(error: ValidationError, raw: Any) -> list[str]:
    """One line per pydantic error: ``<json.path>: <problem> — <fix>``; many missing tokens make one line."""
    errors = error.errors(include_url=False)
    missing = [
        str(e["loc"][1]) for e in errors if e["type"] == "missing" and len(e["loc"]) == 2 and e["loc"][0] == "colors"
    ]
    if len(missing) <= _MAX_MISSING_LINES:
        return [_issue(item, raw) for item in errors]
    issues = [_issue(item, raw) for item in errors if item["type"] != "missing" or item["loc"][0] != "colors"]
    issues.append(
        f"colors: {len(missing)} tokens missing ({', '.join(missing)}) — add a colour for each; "
        "a built-in theme file is a good starting point (see docs/themes.md)"
    )
    return issues


def parse_theme_file(raw: Any) -> tuple[ThemeFile | None, list[str]]:
    """Validate decoded JSON; returns the model (or None) and the shape problems found."""
    try:
        return ThemeFile.model_validate(raw), []
    except ValidationError as error:
        return None, validation_issues(error, raw)
