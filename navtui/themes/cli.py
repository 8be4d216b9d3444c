"""``navtui themes list`` and ``navtui themes validate FILE...``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from navtui.themes.contrast import readability_warnings, safety_issues
from navtui.themes.loader import ThemeRegistry, brief_error, builtin_themes, load_theme_file
from navtui.themes.schema import ThemeError

_MAX_CONTRAST_LINES = 8


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="navtui themes", description="List and check navtui themes.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="built-in and custom themes, and custom files that do not load")
    validate = commands.add_parser("validate", help="check theme files; exit 1 if any is not valid")
    validate.add_argument("files", nargs="+", type=Path, metavar="FILE")
    return parser


def themes_main(
    argv: list[str], *, cwd: Path | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:  # argparse already printed the usage or help
        return int(exit_.code or 0)
    if args.command == "list":
        return _list(cwd or Path.cwd(), out, err)
    return _validate(args.files, out, err)


def _list(cwd: Path, out: TextIO, err: TextIO) -> int:
    registry = ThemeRegistry(cwd)
    rows = [(name, registry.get(name)) for name in registry.names()]
    width = max(len(name) for name, _ in rows) + 2
    for name, theme in rows:
        source = "built-in" if theme.source == "builtin" else theme.source
        where = f"  {theme.path}" if theme.is_custom else ""
        tone = "dark" if theme.dark else "light"
        print(f"{name.ljust(width)}{source:<9}{tone:<6}{where}".rstrip(), file=out)
    for warning in registry.warnings:
        print(f"note: {warning}", file=err)
    for path, error in registry.errors.items():
        print(f"not loaded: {brief_error(path, error)}", file=err)
    print(
        f"custom themes: {registry.user_dir}" + (f" and {registry.project_dir}" if registry.project_dir else ""),
        file=out,
    )
    return 0


def _validate(files: list[Path], out: TextIO, err: TextIO) -> int:
    failed = 0
    for path in files:
        try:
            theme = load_theme_file(path)
        except ThemeError as error:
            failed += 1
            print(error, file=err)
            continue
        print(f'ok: {path} (theme "{theme.name}", {"dark" if theme.dark else "light"})', file=out)
        builtin = builtin_themes().get(theme.name)
        if builtin is not None and builtin.path != path.resolve():
            print(f'  note: in a themes folder this file replaces the built-in theme "{theme.name}"', file=out)
        unsafe = safety_issues(theme)
        if unsafe:
            print(
                f"  warning: {len(unsafe)} colour pairs of the approval dialogs, warnings or status line are "
                "unreadable: navtui corrects them in your own themes and does not use such a theme from a "
                "repository's .navtui/themes:",
                file=out,
            )
            for unsafe_pair in unsafe[:_MAX_CONTRAST_LINES]:
                print(f"    {unsafe_pair}", file=out)
        issues = readability_warnings(theme)
        if issues:
            print(f"  warning: {len(issues)} colours are invisible or hard to read (contrast under 3:1):", file=out)
            for issue in issues[:_MAX_CONTRAST_LINES]:
                print(f"    {issue}", file=out)
            if len(issues) > _MAX_CONTRAST_LINES:
                print(f"    ... and {len(issues) - _MAX_CONTRAST_LINES} more", file=out)
    return 1 if failed else 0
