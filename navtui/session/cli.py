"""``navtui sessions`` and ``navtui export``: the session subcommands (wired into ``navtui/cli.py``)."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from navtui.core.errors import NavtuiError
from navtui.core.text import json_text
from navtui.session.listing import SessionSummary, list_sessions, short_ids, unreadable_folders


def sessions_main(argv: list[str] | None = None, *, cwd: Path | None = None, root: Path | None = None) -> int:
    parser = argparse.ArgumentParser(prog="navtui sessions", description="List recent sessions (this directory).")
    parser.add_argument("--all", action="store_true", help="sessions of every directory")
    parser.add_argument("--json", action="store_true", help="one JSON array instead of a table")
    parser.add_argument("-n", "--limit", type=int, default=30, help="at most this many rows (default 30; 0: all)")
    args = parser.parse_args(argv)
    scope = None if args.all else (cwd or Path.cwd())
    for note in unreadable_folders(scope, root):
        print(f"navtui sessions: warning: {note}", file=sys.stderr)
    rows = list_sessions(scope, root=root)
    ids = short_ids([row.id for row in rows])  # as many characters as tell them apart, from the rows cut off too
    if args.limit > 0:
        rows, ids = rows[: args.limit], ids[: args.limit]
    if args.json:
        print(json_text([row.to_json() for row in rows], indent=2))
        return 0
    if not rows:
        where = "anywhere" if args.all else "for this directory"
        print(f"No sessions {where}. Start one with `navtui`; `navtui sessions --all` lists every directory.")
        return 0
    print(_table(rows, ids, show_cwd=args.all))
    return 0


def export_main(argv: list[str] | None = None, *, cwd: Path | None = None, root: Path | None = None) -> int:
    parser = argparse.ArgumentParser(prog="navtui export", description="Export a session as HTML or Markdown.")
    parser.add_argument("session", help="a session file, or a session id (or its first characters)")
    parser.add_argument("--format", choices=("html", "md"), help="default: from -o's suffix, else html")
    parser.add_argument(
        "-o",
        "--output",
        help="file or folder to write to, - for stdout (default: ~/.navtui/exports/<session>.<format>)",
    )
    parser.add_argument("--theme", choices=("dark", "light"), default="dark", help="HTML colours (default dark)")
    parser.add_argument("--force", action="store_true", help="replace the output file even if it is no export")
    args = parser.parse_args(argv)
    from navtui.session.export import (
        check_replaceable,
        export_format,
        export_html,
        export_markdown,
        export_target,
        render_html,
        render_markdown,
    )
    from navtui.session.manager import SessionManager

    try:
        session = SessionManager.open(SessionManager.resolve(cwd or Path.cwd(), args.session, root=root))
        if args.output == "-":  # stdout: through the terminal guard like every other output (navtui/cli.py)
            fmt = args.format or "md"
            sys.stdout.write(render_markdown(session) if fmt == "md" else render_html(session, theme=args.theme))
            for warning in session.warnings:
                print(f"warning: {warning}", file=sys.stderr)
            return 0
        fmt = args.format or (export_format(Path(args.output)) if args.output else "html")
        output = export_target(args.output, Path.cwd(), f"{session.path.stem}.{fmt}")
        if not args.force:
            check_replaceable(output, "give another name, or add --force to replace it")
        if fmt == "md":
            export_markdown(session, output)
        else:
            export_html(session, output, theme=args.theme)
    except NavtuiError as exc:
        print(f"navtui export: {exc.message}" + (f" ({exc.hint})" if exc.hint else ""), file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"navtui export: cannot write {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 1
    for warning in session.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(output)
    return 0


def _table(rows: list[SessionSummary], ids: list[str], *, show_cwd: bool) -> str:
    foreign = any(row.origin != "navtui" for row in rows)  # pi's and omp's own sessions say where they live
    headers = ["ID", *(["FROM"] if foreign else []), "MODIFIED", "ENTRIES", "MODEL", "NAME", "LABELS"]
    headers += ["DIRECTORY"] if show_cwd else []
    name_column = headers.index("NAME")
    table = [
        [
            ids[number],
            *([row.origin] if foreign else []),
            _age(row.modified),
            str(row.entry_count),
            row.model or "-",
            row.name or "(empty)",
            ", ".join(row.labels) or "-",
            *([row.cwd] if show_cwd else []),
        ]
        for number, row in enumerate(rows)
    ]
    widths = [max(len(line[i]) for line in [headers, *table]) for i in range(len(headers))]
    widths[name_column] = min(widths[name_column], 60)
    out = []
    for line in [headers, *table]:
        cells = [cell if len(cell) <= widths[i] else cell[: widths[i] - 1] + "…" for i, cell in enumerate(line)]
        out.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(cells)).rstrip())
    return "\n".join(out)


def _age(moment: datetime) -> str:
    seconds = (datetime.now(UTC) - moment).total_seconds()
    if seconds < 60:
        return "just now"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return (
                f"{int(seconds // size)}{unit} ago"
                if unit != "d" or seconds < 30 * 86400
                else moment.strftime("%Y-%m-%d")
            )
    return moment.strftime("%Y-%m-%d")
