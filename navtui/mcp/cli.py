"""``navtui mcp list``, ``navtui mcp add NAME (--url URL | -- COMMAND ARGS...)``, ``navtui mcp remove NAME``."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TextIO

from pydantic import ValidationError

from navtui.core.errors import ConfigError, NavtuiError
from navtui.mcp.config import ServerConfig, add_user_server, load_config, remove_user_server, user_config_path
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
    remove = commands.add_parser("remove", help="remove a server from the user file")
    remove.add_argument("name")
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
        return _remove(args.name, stdout, stderr)
    except NavtuiError as exc:
        print(f"navtui mcp: {exc}", file=err)
        return 2


async def _list(cwd: Path, no_connect: bool, trust: bool, out: TextIO, err: TextIO) -> int:
    from navtui.config.paths import navtui_home
    from navtui.config.settings import load_settings
    from navtui.mcp.manager import build_manager
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
    return 1 if any(status.state == "failed" for status in manager.status()) else 0


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
    existed = load_config(Path.cwd()).get(args.name)
    path = add_user_server(args.name, config)
    verb = "Replaced" if existed is not None and existed.source == "user" else "Added"
    print(f"{verb} MCP server '{args.name}' in {path}. It starts with navtui; check it with: navtui mcp list", file=out)
    return 0


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
