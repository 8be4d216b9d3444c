"""Settings: defaults < ``~/.navtui/settings.json`` < ``<repo>/.navtui/settings.json`` < CLI flags.

Each feature owns one section. Unknown keys are reported as warnings (never fatal); a bad value is a
``ConfigError`` that names the key and the file. A project file may tighten permissions, never loosen them or
redirect endpoints: ``project_rules.PROJECT_RULES`` says what it may change (a new setting must be added there).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from navtui.config.endpoints import ProviderName
from navtui.config.launch import DEFAULT_MODEL
from navtui.config.paths import project_dir, user_settings_path
from navtui.config.project_rules import PROJECT_RULES, Endpoint, HeldModel, filter_project
from navtui.core.errors import ConfigError

_SECONDS = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)")
_GO_DURATION = re.compile(r"[-+]?((\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h))+")  # Go's time.ParseDuration
ApprovalMode = Literal["ask", "write", "yolo"]
SandboxMode = Literal["workspace-write", "read-only", "off"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="allow", validate_assignment=True)


class ProviderSettings(_Section):
    num_ctx_cap: int = Field(32768, ge=512, description="Upper bound for Ollama's num_ctx")
    keep_alive: str | int | float | None = Field(
        "10m", description='Ollama: a duration ("10m", "1h") or seconds; -1 keeps the model loaded, 0 unloads it'
    )
    think: bool | Literal["low", "medium", "high"] | None = None
    tool_protocol: Literal["auto", "native", "text", "constrained", "edits"] = "auto"
    context_window: int | None = Field(None, ge=512, description="Window for endpoints that do not report one")
    request_timeout: float = Field(300.0, gt=0, description="Seconds to wait for the first byte of a response")
    stall_timeout: float = Field(120.0, gt=0, description="Seconds of silence mid-stream before giving up")
    max_retries: int = Field(3, ge=0)
    max_tokens: int = Field(8192, ge=16)
    temperature: float | None = None
    request_fields: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="Extra request fields per model (a glob on the model name), e.g. "
        '{"qwen2.5-coder*": {"temperature": 0.2, "top_p": 0.9, "stop": ["</tool_call>"]}}',
    )
    compact_prompt: Literal["auto", "on", "off"] = Field(
        "auto", description="Core tools and short prompts (auto: for windows under 8192 tokens)"
    )

    @field_validator("keep_alive", mode="before")
    @classmethod
    def _ollama_duration(cls, value: Any) -> Any:
        """As Ollama reads it: a number is seconds, a string a Go duration; ``"-1"`` (Ollama's own
        ``OLLAMA_KEEP_ALIVE=-1``) is the number, which Ollama would refuse as a string without a unit."""
        if isinstance(value, bool):
            raise ValueError('a duration ("10m"), seconds, -1 or 0, not true or false')
        if not isinstance(value, str):
            return value
        text = value.strip()
        if _SECONDS.fullmatch(text):
            number = float(text)
            return int(number) if number.is_integer() else number
        if not _GO_DURATION.fullmatch(text):
            raise ValueError(f'{value!r} is not a duration Ollama reads: write "10m", "1h", "90s", or -1 or 0')
        if not any(digit in "123456789" for digit in text):  # "0s", "0m": the 0 that unloads after each request
            return 0
        return text


class ToolSettings(_Section):
    allow: list[str] = Field(default_factory=list, description="Tools that never ask")
    deny: list[str] = Field(default_factory=list, description="Tools that are never run")
    prompt: list[str] = Field(default_factory=list, description="Tools that always ask (outside yolo)")
    extra_roots: list[str] = Field(default_factory=list, description="Directories outside cwd the tools may write")
    auto_attach: bool = Field(True, description="Attach the workspace files a prompt names (within the window)")
    shell_wait_ms: int = Field(30000, ge=0)
    shell_timeout: float = Field(600.0, gt=0)
    shell_env_passthrough: list[str] = Field(
        default_factory=list, description="Secret-looking environment variables commands may still see"
    )
    artifacts_max_days: float = Field(7.0, gt=0, description="Shell output files older than this are deleted")
    artifacts_max_mb: int = Field(500, ge=1, description="Oldest shell output files go first above this total")


class SandboxSettings(_Section):
    mode: SandboxMode = Field("workspace-write", description="What shell commands may write (Landlock on Linux)")
    network: bool = Field(False, description="Let sandboxed commands open TCP connections")
    writable_roots: list[str] = Field(
        default_factory=list, description="More directories sandboxed commands may write (workspace-write)"
    )


class HandoverSettings(_Section):
    enabled: bool = False
    threshold: float = Field(0.8, gt=0, le=1)


class CompactionSettings(_Section):
    strategy: Literal["compact", "handover", "off"] = "compact"
    reserve_tokens: int | None = Field(None, ge=0)
    keep_recent_tokens: int | None = Field(None, ge=0)
    unexpected_stop: Literal["heuristic", "model", "off"] = Field(
        "heuristic", description="Nudge a model that announced work and stopped (model: ask model_roles.classifier)"
    )


class AdvisorSettings(_Section):
    enabled: bool = False
    sync_backlog: Literal["off", 1, 3, 5] = "off"


class IndexSettings(_Section):
    inject: Literal["auto", "on", "off"] = "auto"
    embed_model: str = "nomic-embed-text"
    max_file_bytes: int = Field(1_000_000, ge=1024, description="Larger files are left out of the index")


class CheckpointSettings(_Section):
    enabled: bool = Field(True, description="Snapshot the workspace after every turn that changed it (/undo)")
    max_file_kb: int = Field(2048, ge=1, description="Larger files are left out of checkpoints (and said so)")
    max_files: int = Field(50_000, ge=1, description="Checkpoints are off in a directory with more files")


class McpToolFilter(_Section):
    allow: list[str] | None = Field(None, description="Offer only these tools of the server (globs on its names)")
    deny: list[str] = Field(default_factory=list, description="Never offer these tools of the server (globs)")


class McpSettings(_Section):
    startup_timeout: float = Field(30.0, gt=0, description="Seconds a server may take to start and list its tools")
    call_timeout: float = Field(600.0, gt=0, description="Seconds one MCP tool call may take")
    tools: dict[str, McpToolFilter] = Field(default_factory=dict, description="Per server: which tools to offer")


class AgentSettings(_Section):
    check_command: str | None = Field(
        None, description="Run after the model's edits; while it fails the model is asked again (agent/check.py)"
    )
    check_rounds: int = Field(3, ge=0, le=20, description="How many times a failing check asks the model again")


class UISettings(_Section):
    theme: str = "dark"
    double_escape_action: Literal["tree", "branch", "none"] = "tree"
    branch_summary: Literal["ask", "never", "always"] = "ask"
    mounted_entries: int = Field(30, ge=10)
    notify: Literal["auto", "osc9", "osc777", "bell", "off"] = Field(
        "auto", description="How a long turn's end or a waiting approval is announced (auto: by the terminal)"
    )
    notify_after: float = Field(30.0, ge=0, description="Seconds a turn must have run before its end is announced")
    local_echo: bool = Field(
        True, description="Show a typed key at once, before the UI loop handles it (NAVTUI_LOCAL_ECHO=0: off)"
    )


class Settings(BaseModel):
    model_config = ConfigDict(extra="allow", validate_assignment=True)

    model: str | None = None
    provider: ProviderName | None = None
    base_url: str | None = None
    approval: ApprovalMode = "ask"
    max_turns: int = Field(100, ge=1)
    model_roles: dict[str, str] = Field(default_factory=dict, description="e.g. {'advisor': 'qwen3:14b'}")
    providers: ProviderSettings = Field(default_factory=ProviderSettings)
    tools: ToolSettings = Field(default_factory=ToolSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    handover: HandoverSettings = Field(default_factory=HandoverSettings)
    compaction: CompactionSettings = Field(default_factory=CompactionSettings)
    advisor: AdvisorSettings = Field(default_factory=AdvisorSettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    checkpoints: CheckpointSettings = Field(default_factory=CheckpointSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    ui: UISettings = Field(default_factory=UISettings)


class LoadedSettings:
    """The merged settings plus what went wrong reading them (warnings are shown once, never fatal).

    ``held``: a repository's model choices that would leave the user's endpoint and that the user has not
    answered yet (not applied; the app asks, headless runs refuse). ``repository``: the root they belong to.
    """

    def __init__(
        self,
        settings: Settings,
        warnings: list[str],
        sources: list[Path],
        held: list[HeldModel] | None = None,
        repository: Path | None = None,
    ) -> None:
        self.settings = settings
        self.warnings = warnings
        self.sources = sources
        self.held = held or []
        self.repository = repository


MAX_JSON_BYTES = 16 * 1024 * 1024  # a settings-like file larger than this is a mistake, not settings


def read_json_object(path: Path) -> dict[str, Any]:
    """A settings-like file's JSON object; ``{}`` when it is missing or empty. ``ConfigError`` names the file."""
    from navtui.config.repo_files import RefusedFile, read_regular

    try:
        # Not read_text: a named pipe in a file's place (a tarball can ship one) blocked the start for ever.
        data, size = read_regular(path, MAX_JSON_BYTES + 1, inside=None)
        if size > MAX_JSON_BYTES:
            raise ConfigError(f"{path}: {size // (1024 * 1024)} MB is too large for a settings file")
        text = data.decode("utf-8")
    except FileNotFoundError:
        return {}
    except RefusedFile as exc:
        raise ConfigError(f"{path} {exc}", hint="put a JSON file there, or remove it") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:  # a Latin-1 editor's save, or a repository's file: an error, not a traceback
        raise ConfigError(
            f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})",
            hint="save the file as UTF-8, or delete it to use the defaults",
        ) from exc
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
            hint="fix the file or delete it to use the defaults",
        ) from exc
    except RecursionError:  # a repository's `[[[[...` 100,000 deep: a traceback at every start
        raise ConfigError(f"{path}: nested too deeply to be settings", hint="fix the file or delete it") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object at the top level")
    return data


def _deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _unknown_keys(data: dict[str, Any], model: type[BaseModel], prefix: str = "") -> list[str]:
    unknown: list[str] = []
    for key, value in data.items():
        field = model.model_fields.get(key)
        if field is None:
            unknown.append(prefix + key)
            continue
        annotation = field.annotation
        if isinstance(value, dict) and isinstance(annotation, type) and issubclass(annotation, BaseModel):
            unknown.extend(_unknown_keys(value, annotation, f"{prefix}{key}."))
    return unknown


def setting_paths(model: type[BaseModel] = Settings, prefix: str = "") -> set[str]:
    """Every dotted path navtui has a setting for (sections and their fields)."""
    paths: set[str] = set()
    for name, field in model.model_fields.items():
        paths.add(prefix + name)
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            paths |= setting_paths(annotation, f"{prefix}{name}.")
    return paths


def _extend(data: dict[str, Any], dotted: str, items: list[Any], base: Settings) -> None:
    """Add ``items`` to the list at ``dotted`` (starting from its current effective value), keeping order."""
    *parents, last = dotted.split(".")
    node, effective = data, base.model_dump()
    for part in parents:
        node = node.setdefault(part, {})
        effective = effective.get(part, {})
    current = list(node.get(last, effective.get(last, [])))
    node[last] = current + [item for item in items if item not in current]


def validate_settings(data: dict[str, Any], source: str) -> Settings:
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors(include_url=False)
        )
        raise ConfigError(f"{source}: {problems}", hint="fix the value or remove the key") from exc


def load_settings(cwd: Path, overrides: dict[str, Any] | None = None) -> LoadedSettings:
    """Merge the layers. ``overrides`` are CLI values (nested dicts allowed); ``None`` values are ignored."""
    warnings: list[str] = []
    sources: list[Path] = []
    merged: dict[str, Any] = {}
    held: list[HeldModel] = []
    flags = {k: v for k, v in (overrides or {}).items() if v is not None}
    user_path = user_settings_path()
    project_path = project_dir(cwd) / "settings.json"
    repository = project_path.parent.parent
    for path, is_project in ((user_path, False), (project_path, True)):
        if is_project and path.resolve() == user_path.resolve():
            continue
        data = read_json_object(path)
        if not data:
            continue
        sources.append(path)
        for key in _unknown_keys(data, Settings):
            if not (is_project and key in PROJECT_RULES):  # those get the project warning instead
                warnings.append(f"{path}: unknown setting '{key}' (ignored)")
        if not is_project:
            validate_settings(data, str(path))  # name the file that holds a bad value
            merged = _deep_merge(merged, data)
            continue
        lower = validate_settings(merged, str(user_path))
        chosen = validate_settings(_deep_merge(merged, flags), "settings") if flags else lower
        layer = filter_project(
            data,
            lower.model_dump(),
            source=str(path),
            user_file=str(user_path),
            known=setting_paths(),
            endpoint=_endpoints(chosen),
        )
        warnings.extend(layer.warnings)
        # Only what a project may set is validated: a bad value under a key it may not set was ignored above.
        validate_settings(layer.allowed, str(path))
        merged = _deep_merge(merged, layer.allowed)
        for dotted, items in layer.additions.items():
            _extend(merged, dotted, items, lower)
        held = _answered(layer.held, repository, merged, warnings, flags)
    if flags:
        merged = _deep_merge(merged, flags)
    return LoadedSettings(validate_settings(merged, "settings"), warnings, sources, held, repository)


def _endpoints(settings: Settings) -> Callable[[str, str], Endpoint]:
    """Where a model named at a setting path would be served under ``settings`` (path ``""``: the user's own)."""

    def endpoint(path: str, model: str) -> Endpoint:
        from navtui.config.endpoints import resolve_base_url, resolve_provider

        chosen = settings
        if not path:
            model = settings.model or DEFAULT_MODEL
        elif path == "model":  # it replaces the user's model: the user's provider applies to it
            chosen = settings.model_copy(update={"model": model})
        name = resolve_provider(chosen, model)
        return name, resolve_base_url(chosen, name)

    return endpoint


def _answered(
    held: list[HeldModel], repository: Path, merged: dict[str, Any], warnings: list[str], flags: dict[str, Any]
) -> list[HeldModel]:
    """Apply what the user allowed for this repository, drop what they declined; the rest is still to be asked."""
    from navtui.config.repo_approvals import RepoApprovals

    pending = []
    approvals = RepoApprovals()
    for choice in held:
        if choice.path == "model" and flags.get("model"):
            continue  # -m: the command line chose the model, the repository's does not matter
        decision = approvals.decision(repository, choice)
        if decision == "allow":
            *parents, last = choice.path.split(".")
            node = merged
            for part in parents:
                node = node.setdefault(part, {})
            node[last] = choice.value
        elif decision == "deny":
            warnings.append(f"{choice.describe()}; not used, as you answered for this repository")
        else:
            pending.append(choice)
    return pending


def save_user_setting(key_path: str, value: Any) -> None:
    """Persist one dotted key (``ui.theme``) in the user settings file, atomically."""
    from navtui.core.fs import atomic_write_text

    path = user_settings_path()
    data = read_json_object(path)
    node = data
    *parents, last = key_path.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
    validate_settings(data, str(path))
    atomic_write_text(path, json.dumps(data, indent=2) + "\n")
