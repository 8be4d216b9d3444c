"""Where MCP servers are configured: the user's ``~/.navtui/mcp.json`` and a repository's ``.mcp.json``.

Both use the shape users already have from Claude Code's ``.mcp.json`` and Claude Desktop's config::

    {"mcpServers": {"files": {"command": "npx", "args": ["-y", "pkg"], "env": {"TOKEN": "${TOKEN}"}, "cwd": "."},
                    "search": {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": "Bearer ${KEY}"}}}}

A broken file or server entry is a warning naming the file and the server; the other servers still load.
``${VAR}`` (and ``${VAR:-default}``) expand from the environment only when a server starts, in memory: the
files, the session and every message show the unexpanded text.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from navtui.config.settings import read_json_object
from navtui.core.errors import ConfigError
from navtui.mcp.paths import project_config_path, user_config_path

Source = Literal["user", "project"]
Transport = Literal["stdio", "http"]

SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_HTTP_TYPES = ("http", "streamable-http", "streamableHttp", "streamable_http")
# Values this short are not worth hiding and would blank out ordinary words in messages.
_MIN_SECRET_LENGTH = 4


class ServerConfig(BaseModel):
    """One entry of ``mcpServers``: a command to run (stdio) or a URL to connect to (streamable HTTP)."""

    model_config = ConfigDict(extra="allow")

    type: str | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    auth: Literal["oauth", "none"] | None = None  # an HTTP server's OAuth: always, never, or when it asks
    disabled: bool = False

    @model_validator(mode="after")
    def _one_transport(self) -> ServerConfig:
        if self.type == "sse":
            raise ValueError("the SSE transport is not supported; use the server's streamable HTTP URL (often /mcp)")
        if self.type is not None and self.type != "stdio" and self.type not in _HTTP_TYPES:
            raise ValueError(f"unknown type '{self.type}' (use stdio or http)")
        if self.command and self.url:
            raise ValueError("give either command (stdio) or url (streamable HTTP), not both")
        if not self.command and not self.url:
            raise ValueError("needs a command (stdio) or a url (streamable HTTP)")
        if self.type == "stdio" and not self.command:
            raise ValueError("type stdio needs a command")
        if self.type in _HTTP_TYPES and not self.url:
            raise ValueError(f"type {self.type} needs a url")
        if self.auth is not None and not self.url:
            raise ValueError("auth applies to an HTTP server (url) only")
        return self

    @property
    def transport(self) -> Transport:
        return "http" if self.url else "stdio"

    def to_json(self) -> dict[str, Any]:
        """The entry as it is written to a file: only what was set."""
        return self.model_dump(exclude_defaults=True)


@dataclass(frozen=True)
class ServerSpec:
    """A configured server: its name, its entry, and which file it came from."""

    name: str
    config: ServerConfig
    source: Source
    path: Path

    @property
    def transport(self) -> Transport:
        return self.config.transport

    @property
    def target(self) -> str:
        """What it runs or where it connects, unexpanded (safe to show: ``${VAR}`` stays as written)."""
        if self.config.url:
            return self.config.url
        return " ".join(_shown(word) for word in [self.config.command or "", *self.config.args])

    def fingerprint(self) -> str:
        """Changes whenever the entry does, so an approval never carries over to a different command."""
        # ``auth`` joined the entry later: left out while unset, so approvals given before stay valid.
        text = json.dumps(
            self.config.model_dump(mode="json", exclude={"auth"} if self.config.auth is None else None), sort_keys=True
        )
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


_PLAIN_WORD = re.compile(r"[\w@%+=:,./~${}-]+")


def _shown(word: str) -> str:
    """A word of a command line as a shell user would type it: quoted only when it needs to be (spaces,
    quotes, ...); ``${VAR}`` is left bare, as it is written in the file."""
    import shlex

    return word if _PLAIN_WORD.fullmatch(word) else shlex.quote(word)


@dataclass
class McpConfig:
    servers: list[ServerSpec] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def get(self, name: str) -> ServerSpec | None:
        return next((spec for spec in self.servers if spec.name == name), None)


def load_config(cwd: Path) -> McpConfig:
    """The user's servers, then the repository's; a name defined in both is the user's."""
    config = McpConfig()
    user_path, project_path = user_config_path(), project_config_path(cwd)
    for path, source in ((user_path, "user"), (project_path, "project")):
        if source == "project" and project_path.resolve() == user_path.resolve():
            continue
        for spec in _read_servers(path, source, config.warnings):  # type: ignore[arg-type]
            if config.get(spec.name) is not None:
                config.warnings.append(f"{path}: MCP server '{spec.name}' is already defined in {user_path}; ignored")
                continue
            config.servers.append(spec)
    return config


def _read_servers(path: Path, source: Source, warnings: list[str]) -> list[ServerSpec]:
    try:
        data = read_json_object(path)
    except ConfigError as exc:
        warnings.append(f"{exc.message}; its MCP servers are not started" + (f" ({exc.hint})" if exc.hint else ""))
        return []
    entries = data.get("mcpServers", {})
    if not isinstance(entries, dict):
        warnings.append(f"{path}: 'mcpServers' must be an object of server entries; its servers are not started")
        return []
    specs: list[ServerSpec] = []
    for name, entry in entries.items():
        if not SERVER_NAME.match(name):
            warnings.append(f"{path}: MCP server name '{name}' may only use letters, digits, '_' and '-'; rename it")
            continue
        if source == "project" and ("__" in name or name.endswith("_")):
            # Its tools, mcp__<name>__<tool>, would start like those of a server named up to the '__' (or without
            # the '_'): a glob such as mcp__github__* in tools.allow would let them run without asking.
            warnings.append(
                f"{path}: MCP server name '{name}' may not hold '__' or end in '_' in a repository's file: its tools "
                f"would be named like another server's (mcp__{name}__...) and match the tools.allow globs you set "
                "for that one; rename it"
            )
            continue
        try:
            config = ServerConfig.model_validate(entry)
        except ValidationError as exc:
            problems = "; ".join(_problem(err) for err in exc.errors(include_url=False))
            warnings.append(f"{path}: MCP server '{name}': {problems}")
            continue
        specs.append(ServerSpec(name, config, source, path))
    return specs


def _problem(error: Any) -> str:
    where = ".".join(str(part) for part in error["loc"])
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


# ---------------------------------------------------------------------------- expansion
@dataclass(frozen=True)
class ResolvedServer:
    """A server's entry with ``${VAR}`` expanded, ready to start. Lives in memory only."""

    name: str
    transport: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()

    def redact(self, text: str) -> str:
        """``text`` with every header and env value (and every expanded variable) replaced by ``***``."""
        for secret in sorted(self.secrets, key=len, reverse=True):
            text = text.replace(secret, "***")
        return text


def resolve(spec: ServerSpec, environ: Mapping[str, str], base_dir: Path) -> ResolvedServer:
    """Expand ``${VAR}`` everywhere in the entry. A relative ``cwd`` is taken from ``base_dir``.

    Raises ``ConfigError`` naming the server and the variable when one is unset and has no default.
    """
    config = spec.config
    expanded: list[str] = []

    def expand(text: str) -> str:
        def value(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            found = environ.get(name)
            if found is None:
                if default is None:
                    raise ConfigError(
                        f"MCP server '{spec.name}' uses ${{{name}}}, which is not set",
                        hint=f"export {name}=… before starting navtui, or write ${{{name}:-default}} in {spec.path}",
                    )
                found = default
            expanded.append(found)
            return found

        return _VARIABLE.sub(value, text)

    env = {key: expand(value) for key, value in config.env.items()}
    headers = {key: expand(value) for key, value in config.headers.items()}
    command = expand(config.command or "")
    args = tuple(expand(arg) for arg in config.args)
    url = expand(config.url or "")
    cwd = base_dir / Path(expand(config.cwd)).expanduser() if config.cwd else base_dir
    secrets = {value for value in [*env.values(), *headers.values(), *expanded] if len(value) >= _MIN_SECRET_LENGTH}
    return ResolvedServer(
        name=spec.name,
        transport=config.transport,
        command=command,
        args=args,
        env=env,
        cwd=cwd,
        url=url,
        headers=headers,
        secrets=tuple(secrets),
    )


# ---------------------------------------------------------------------------- the user file
def add_user_server(name: str, config: ServerConfig, *, replace: bool = False) -> Path:
    """Add ``name`` to the user file (an existing one only with ``replace``), keeping everything else in it.
    Returns the file's path."""
    if not SERVER_NAME.match(name):
        raise ConfigError(f"'{name}' is not a valid MCP server name", hint="use letters, digits, '_' and '-'")
    path = user_config_path()
    data = read_json_object(path)
    servers = data.get("mcpServers")
    if servers is None:
        servers = data["mcpServers"] = {}
    if not isinstance(servers, dict):
        raise ConfigError(f"{path}: 'mcpServers' is not an object", hint="fix the file by hand first")
    if name in servers and not replace:
        raise ConfigError(
            f"MCP server '{name}' is already in {path}", hint="pick another name, or add --force to replace it"
        )
    servers[name] = config.to_json()
    _write(path, data)
    return path


def check_url(url: str) -> None:
    """An HTTP server's URL must be http(s)://host...; a ``${VAR}`` part is checked when the server starts."""
    from urllib.parse import urlsplit

    if "${" in url and url.startswith("${"):
        return
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise ConfigError(
            f"'{url}' is not an HTTP URL", hint="give the server's streamable HTTP endpoint: http://host:port/mcp"
        )
    if not parts.netloc or parts.netloc.startswith(":"):
        raise ConfigError(f"'{url}' names no host", hint="for example http://127.0.0.1:8000/mcp")


def remove_user_server(name: str) -> bool:
    """Remove ``name`` from the user file; False when it was not there."""
    path = user_config_path()
    data = read_json_object(path)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict) or name not in servers:
        return False
    del servers[name]
    _write(path, data)
    return True


def _write(path: Path, data: dict[str, Any]) -> None:
    from navtui.core.fs import atomic_write_text

    # Headers and env often hold tokens: a new file is private to the user (an existing one keeps its mode).
    mode = None if path.exists() else 0o600
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", mode=mode)
