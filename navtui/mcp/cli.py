"""``navtui mcp list``, ``add NAME (--url URL | -- COMMAND ARGS...)``, ``add-json NAME JSON``, ``get NAME``,
``import claude-desktop|claude-code``, ``remove NAME``, ``login NAME``, ``logout NAME``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TextIO

from pydantic import ValidationError

from navtui.core.errors import ConfigError, NavtuiError
from navtui.core.wording import counted
from navtui.mcp.config import (
    ServerConfig,
    add_user_server,
    check_url,
    load_config,
    remove_user_server,
    user_config_path,
)
from navtui.mcp.report import status_lines


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="navtui mcp", description="MCP servers whose tools navtui offers the model.")
    commands = parser.add_subparsers(dest="action", required=True)
    listing = commands.add_parser("list", help="servers, transport, state and tool names (connects to each)")
    listing.add_argument("--no-connect", action="store_true", help="show the configuration without starting servers")
    listing.add_argument("--mcp-trust", action="store_true", help="also start this repository's .mcp.json servers")
    add = commands.add_parser(
        "add",
        help="add a server to the user file",
        description="navtui mcp add NAME -- COMMAND [ARGS...]   or   navtui mcp add NAME --url URL",
    )
    add.add_argument("name")
    add.add_argument("--url", help="a streamable HTTP endpoint (http://host:port/mcp)")
    add.add_argument("--header", action="append", default=[], metavar="'NAME: VALUE'", help="HTTP header (repeat)")
    add.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="environment variable (repeat)")
    add.add_argument("--cwd", help="working directory of the command")
    add.add_argument("--force", action="store_true", help="replace a server of that name")
    add_json = commands.add_parser(
        "add-json",
        help="add a server from its JSON entry",
        description="""navtui mcp add-json NAME '{"command": "npx", "args": ["-y", "pkg"]}'""",
    )
    add_json.add_argument("name")
    add_json.add_argument("json", help="the entry, as in mcpServers of .mcp.json")
    add_json.add_argument("--force", action="store_true", help="replace a server of that name")
    get = commands.add_parser("get", help="one server's entry, where it comes from, and its state")
    get.add_argument("name")
    get.add_argument("--no-connect", action="store_true", help="do not start it to count its tools")
    importing = commands.add_parser(
        "import", help="copy servers from Claude Desktop's or Claude Code's configuration into the user file"
    )
    importing.add_argument("origin", choices=["claude-desktop", "claude-code"])
    importing.add_argument("--from-file", type=Path, help="the configuration file, where it is not the usual place")
    importing.add_argument("--force", action="store_true", help="replace servers of the same names")
    remove = commands.add_parser("remove", help="remove a server from the user file")
    remove.add_argument("name")
    login = commands.add_parser(
        "login", help="sign in to an HTTP server with OAuth (opens the browser; prints the URL)"
    )
    login.add_argument("name")
    login.add_argument("--mcp-trust", action="store_true", help="allow this repository's .mcp.json server")
    logout = commands.add_parser("logout", help="forget an HTTP server's OAuth tokens")
    logout.add_argument("name")
    return parser


def mcp_main(argv: list[str], *, cwd: Path | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    stdout: TextIO = out or sys.stdout
    stderr: TextIO = err or sys.stderr
    command: list[str] = []
    if "--" in argv:  # everything after "--" is the server's command line, options included
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1 :]
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:  # argparse already printed the usage or help
        return int(exit_.code or 0)
    args.server_command = command
    try:
        if args.action == "list":
            return asyncio.run(_list(cwd or Path.cwd(), args.no_connect, args.mcp_trust, stdout, stderr))
        if args.action == "add":
            return _add(args, stdout, stderr)
        if args.action == "add-json":
            return _add_json(args.name, args.json, args.force, stdout)
        if args.action == "get":
            return asyncio.run(_get(cwd or Path.cwd(), args.name, args.no_connect, stdout, stderr))
        if args.action == "import":
            return _import(cwd or Path.cwd(), args.origin, args.from_file, args.force, stdout, stderr)
        if args.action == "login":
            return asyncio.run(_login(cwd or Path.cwd(), args.name, args.mcp_trust, stdout, stderr))
        if args.action == "logout":
            return _logout(cwd or Path.cwd(), args.name, stdout, stderr)
        return _remove(args.name, stdout, stderr)
    except NavtuiError as exc:
        print(f"navtui mcp: {exc}", file=stderr)
        return 2


async def _list(cwd: Path, no_connect: bool, trust: bool, out: TextIO, err: TextIO) -> int:
    from navtui.config.paths import navtui_home
    from navtui.config.settings import load_settings
    from navtui.mcp.startup import build_manager
    from navtui.tools.base import ToolRegistry

    settings = load_settings(cwd).settings
    manager = build_manager(cwd, settings, ToolRegistry(), navtui_home() / "artifacts", trust_project=trust)
    if manager is None:
        print("No MCP servers configured. Add one with: navtui mcp add NAME -- COMMAND [ARGS...]", file=out)
        print(f"(the user file is {user_config_path()}; a repository may have a .mcp.json)", file=out)
        return 0
    for text, _level in manager.take_notices():
        print(f"warning: {text}", file=err)
    try:
        if not no_connect:
            await manager.start()
        print("\n".join(status_lines(manager)), file=out)
    finally:
        await manager.aclose()
    return 1 if any(status.state in ("failed", "signin") for status in manager.status()) else 0


def _add(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    command = args.server_command
    if args.url and command:
        print("navtui mcp add: give either --url URL or -- COMMAND [ARGS...], not both", file=err)
        return 2
    try:
        env = dict(_pair(item, "=", "--env") for item in args.env)
        headers = dict(_pair(item, ":", "--header") for item in args.header)
        config = ServerConfig(
            command=command[0] if command else None,
            args=command[1:],
            env=env,
            headers=headers,
            cwd=args.cwd,
            url=args.url,
        )
    except (ValueError, ValidationError) as exc:
        message = exc.errors()[0]["msg"].removeprefix("Value error, ") if isinstance(exc, ValidationError) else exc
        print(f"navtui mcp add: {message}", file=err)
        print("usage: navtui mcp add NAME -- COMMAND [ARGS...]   or   navtui mcp add NAME --url URL", file=err)
        return 2
    if config.url:
        check_url(config.url)
    return _save(args.name, config, args.force, out)


def _save(name: str, config: ServerConfig, force: bool, out: TextIO) -> int:
    existed = load_config(Path.cwd()).get(name)
    path = add_user_server(name, config, replace=force)
    verb = "Replaced" if existed is not None and existed.source == "user" else "Added"
    print(
        f"{verb} MCP server '{name}' in {path}. It starts with navtui; check it with: navtui mcp get {name}", file=out
    )
    return 0


def _add_json(name: str, text: str, force: bool, out: TextIO) -> int:
    try:
        entry = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"the entry is not JSON: {exc}", hint="quote it in single quotes for the shell") from exc
    try:
        config = ServerConfig.model_validate(entry)
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        message = str(problem["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"the entry for '{name}': {where + ': ' if where else ''}{message}") from exc
    if config.url:
        check_url(config.url)
    return _save(name, config, force, out)


async def _get(cwd: Path, name: str, no_connect: bool, out: TextIO, err: TextIO) -> int:
    from navtui.config.paths import navtui_home
    from navtui.config.settings import load_settings
    from navtui.mcp.startup import build_manager
    from navtui.tools.base import ToolRegistry

    spec = load_config(cwd).get(name)
    if spec is None:
        known = ", ".join(s.name for s in load_config(cwd).servers) or "none configured"
        print(f"navtui mcp get: no server '{name}' ({known})", file=err)
        return 1
    entry = spec.config.to_json()
    print(f"{name}  ({spec.source} server, from {spec.path})", file=out)
    print(json.dumps(entry, indent=2, ensure_ascii=False), file=out)
    if no_connect:
        return 0
    settings = load_settings(cwd).settings
    manager = build_manager(cwd, settings, ToolRegistry(), navtui_home() / "artifacts")
    if manager is None:
        return 0
    from navtui.mcp.report import status_lines

    connection = manager.require(name)
    try:
        await manager.start_one(name)
        lines = status_lines(manager)
        start = next(i for i, line in enumerate(lines) if line.split(" ", 1)[0] == name)
        block = [lines[start]]
        for line in lines[start + 1 :]:
            if not line.startswith(" "):
                break
            block.append(line)
        print("\n".join(block), file=out)
    finally:
        await manager.aclose()
    return 1 if connection.state in ("failed", "signin") else 0


async def _login(cwd: Path, name: str, trust: bool, out: TextIO, err: TextIO) -> int:
    from navtui.config.paths import navtui_home
    from navtui.config.settings import load_settings
    from navtui.mcp.oauth import SignIn, token_path
    from navtui.mcp.startup import build_manager
    from navtui.tools.base import ToolRegistry

    settings = load_settings(cwd).settings
    manager = build_manager(cwd, settings, ToolRegistry(), navtui_home() / "artifacts", trust_project=trust)
    if manager is None:
        print(f"navtui mcp login: no server '{name}' (none configured)", file=err)
        return 1

    def show(text: str) -> None:
        print(text, file=out, flush=True)

    try:
        connection = await manager.sign_in(name, SignIn(show=show, console_browser=True))
        if connection.state != "ready":
            print(f"navtui mcp login: '{name}' is not signed in: {connection.error}", file=err)
            return 1
        count = len(manager.offered(connection))
        if not manager.signed_in(name):
            print(f"'{name}' did not ask for a sign-in; it is connected ({counted(count, 'tool')}).", file=out)
            return 0
        print(f"Signed in to '{name}' ({counted(count, 'tool')}). The tokens are kept in {token_path(name)}.", file=out)
        return 0
    finally:
        await manager.aclose()


def _logout(cwd: Path, name: str, out: TextIO, err: TextIO) -> int:
    from navtui.mcp.oauth import forget, token_path

    if load_config(cwd).get(name) is None and not token_path(name).exists():
        print(f"navtui mcp logout: no server '{name}'", file=err)
        return 1
    if forget(name):
        print(f"Signed out of '{name}': its tokens and registered client are forgotten.", file=out)
    else:
        print(f"'{name}' was not signed in (no tokens stored).", file=out)
    return 0


def _import(cwd: Path, origin: str, path: Path | None, force: bool, out: TextIO, err: TextIO) -> int:
    from navtui.mcp.imports import read_servers

    found = read_servers(origin, cwd, path)  # type: ignore[arg-type]
    if not found.servers and not found.skipped:
        print(f"No MCP servers in {found.path}.", file=out)
        return 0
    have = {spec.name for spec in load_config(cwd).servers if spec.source == "user"}
    added: list[str] = []
    for name, config in found.servers.items():
        if name in have and not force:
            found.skipped.append(f"{name}: already in {user_config_path()} (--force replaces it)")
            continue
        add_user_server(name, config, replace=True)
        added.append(name)
    if added:
        print(f"Imported {', '.join(added)} from {found.path} into {user_config_path()}.", file=out)
    for line in found.skipped:
        print(f"not imported: {line}", file=err)
    return 0 if added or not found.skipped else 1


def _pair(item: str, separator: str, flag: str) -> tuple[str, str]:
    key, found, value = item.partition(separator)
    if not found or not key.strip():
        raise ValueError(f"{flag} expects NAME{separator}VALUE, got '{item}'")
    return key.strip(), value.strip() if separator == ":" else value


def _remove(name: str, out: TextIO, err: TextIO) -> int:
    try:
        removed = remove_user_server(name)
    except ConfigError as exc:
        print(f"navtui mcp remove: {exc}", file=err)
        return 2
    if not removed:
        print(f"navtui mcp remove: no server '{name}' in {user_config_path()}", file=err)
        return 1
    print(f"Removed MCP server '{name}' from {user_config_path()}.", file=out)
    return 0
