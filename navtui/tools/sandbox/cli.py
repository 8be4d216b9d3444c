"""``navtui sandbox``: what the shell sandbox allows here, and ``navtui sandbox run -- CMD`` to try a command in it."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="navtui sandbox",
        description="Show the shell sandbox for this directory, or run a command inside it.",
    )
    parser.add_argument("--cwd", type=Path, help="the workspace (default: the current directory)")
    parser.add_argument("--mode", choices=["workspace-write", "read-only", "off"], help="instead of sandbox.mode")
    sub = parser.add_subparsers(dest="action")
    sub.add_parser("status", help="the mode, the writable paths, the network rule (the default action)")
    run = sub.add_parser("run", help="run a command the way navtui runs the model's commands")
    run.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command and its arguments")
    return parser


def sandbox_main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    from navtui.config.settings import load_settings
    from navtui.core.errors import ConfigError
    from navtui.tools.registry import make_context
    from navtui.tools.sandbox.policy import policy_from_settings

    cwd = (args.cwd or Path.cwd()).expanduser().resolve()
    try:
        loaded = load_settings(cwd)
    except ConfigError as exc:
        print(f"navtui: {exc}", file=sys.stderr)
        return 2
    for warning in loaded.warnings:
        print(f"navtui: warning: {warning}", file=sys.stderr)
    roots = make_context(cwd, loaded.settings).workspace.roots
    policy = policy_from_settings(loaded.settings, roots, mode=args.mode)
    if args.action != "run":
        print(policy.describe())
        return 0
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        print("navtui sandbox run: give a command, e.g. navtui sandbox run -- touch ~/x", file=sys.stderr)
        return 2
    if policy.warning:
        print(f"navtui: warning: {policy.warning}", file=sys.stderr)
    from navtui.tools.shell.lifetime import spawn

    process = spawn(command, policy.launcher_policy(os.getpid()), cwd=cwd)
    try:
        return process.wait()
    except KeyboardInterrupt:
        process.wait()
        return 130
