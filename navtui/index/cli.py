"""``navtui index`` and ``navtui search``: build the index with a progress bar, search it from the shell."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from navtui.core.display import display_safe
from navtui.core.terminal import is_terminal, raw

EXIT_OK, EXIT_NO_MATCH, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
DEFAULT_SHOWN_LINES = 12


def _index_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="navtui index",
        description="Build or refresh the repository index (<repo>/.navtui/index.sqlite). Only changed files are re-read.",
    )
    parser.add_argument("path", nargs="?", type=Path, default=Path("."), help="a directory inside the repository")
    embed = parser.add_mutually_exclusive_group()
    embed.add_argument(
        "--embed",
        nargs="?",
        const="",
        metavar="MODEL",
        help="also embed chunks through Ollama (default model from settings: nomic-embed-text)",
    )
    embed.add_argument("--no-embed", action="store_true", help="drop stored embeddings; search uses BM25 only")
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON")
    return parser


def _search_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="navtui search", description="Search the repository index.")
    parser.add_argument(
        "query", nargs="+", help="words or identifiers (parseArgs, parse_args and 'parse args' all match)"
    )
    parser.add_argument("-n", "--limit", type=int, default=10, help="most results (default 10)")
    parser.add_argument("-s", "--symbols", action="store_true", help="look up definitions by name instead")
    parser.add_argument("--lines", type=int, default=DEFAULT_SHOWN_LINES, help="lines shown per result (0: all)")
    parser.add_argument("-C", "--path", type=Path, default=Path("."), help="a directory inside the repository")
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    return parser


def _settings(root: Path) -> tuple[Any, list[str]]:
    from navtui.config.settings import load_settings
    from navtui.core.errors import ConfigError

    try:
        loaded = load_settings(root)
    except ConfigError as exc:
        return None, [f"{exc} (using default index settings)"]
    return loaded.settings, loaded.warnings


def _err(message: str) -> None:
    print(message, file=sys.stderr)


def index_main(argv: list[str]) -> int:
    args = _index_parser().parse_args(argv)
    target = args.path.expanduser()
    if not target.is_dir():
        _err(f"navtui index: {target} is not a directory")
        return EXIT_USAGE
    from navtui.index.builder import DEFAULT_MAX_FILE_BYTES, build_index
    from navtui.index.embed import DEFAULT_EMBED_MODEL, ollama_base_url
    from navtui.index.store import index_path, index_root

    root = index_root(target)
    settings, warnings = _settings(root)
    for warning in warnings:
        _err(f"warning: {warning}")
    index_settings = getattr(settings, "index", None)
    embed_model: str | None = None
    if args.no_embed:
        embed_model = ""
    elif args.embed is not None:
        embed_model = args.embed or getattr(index_settings, "embed_model", None) or DEFAULT_EMBED_MODEL
    options: dict[str, Any] = {
        "embed_model": embed_model,
        "max_file_bytes": getattr(index_settings, "max_file_bytes", DEFAULT_MAX_FILE_BYTES),
        "base_url": ollama_base_url(settings),
    }
    try:
        if is_terminal(sys.stderr) and not args.json:
            stats = _build_with_progress(root, options)
        else:
            stats = build_index(root, **options)
    except KeyboardInterrupt:
        _err("navtui index: interrupted; what was written so far is kept, run it again to finish")
        return EXIT_INTERRUPTED
    except OSError as exc:
        _err(f"navtui index: cannot write {index_path(root)}: {exc.strerror or exc}")
        return EXIT_USAGE
    if args.json:
        print(json.dumps(stats.to_json(), indent=2))
        return EXIT_OK
    for notice in stats.notices:
        _err(f"note: {notice}")
    print(stats.summary())
    if embed_model and stats.embeddings == "skipped":
        print("Embeddings were skipped; the index works without them (BM25 ranking).")
    return EXIT_OK


def _build_with_progress(root: Path, options: dict[str, Any]) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from navtui.index.builder import build_index

    labels = {"scan": "Scanning files", "index": "Indexing", "embed": "Embedding"}
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(file=raw(sys.stderr)), transient=True) as bar:
        tasks: dict[str, Any] = {}

        def report(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(labels.get(phase, phase), total=total or None)
            bar.update(tasks[phase], completed=done, total=total or None)

        return build_index(root, progress=report, **options)


def search_main(argv: list[str]) -> int:
    args = _search_parser().parse_args(argv)
    query = " ".join(args.query).strip()
    if not query or args.limit < 1:
        _err("navtui search: give a non-empty query and a positive --limit")
        return EXIT_USAGE
    from navtui.index.embed import ollama_base_url
    from navtui.index.query import Index
    from navtui.index.store import index_path, index_root

    root = index_root(args.path.expanduser())
    index = Index.open(root)
    if index is None:
        state = "cannot be read" if index_path(root).exists() else "does not exist"
        _err(f"navtui search: the index for {root} {state}; run `navtui index` first")
        return EXIT_NO_MATCH
    try:
        if args.symbols:
            found = index.symbols(query, limit=args.limit)
            if args.json:
                print(json.dumps([{**vars(s), "qualified_name": s.qualified_name} for s in found], indent=2))
            else:
                _print_symbols(found)
            return EXIT_OK if found else EXIT_NO_MATCH
        settings, _warnings = _settings(root)
        hits = index.search(query, args.limit, base_url=ollama_base_url(settings))
    finally:
        index.close()
    if args.json:
        print(json.dumps([vars(hit) for hit in hits], indent=2))
    else:
        _print_hits(hits, query, args.lines)
    return EXIT_OK if hits else EXIT_NO_MATCH


def _console() -> Any:
    """Colours on a terminal (on the raw stream: every text printed here went through display_safe)."""
    from rich.console import Console

    return Console(file=raw(sys.stdout) if is_terminal(sys.stdout) else sys.stdout, highlight=False)


def _print_symbols(found: list[Any]) -> None:
    from rich.text import Text

    console = _console()
    if not found:
        console.print("No matching definitions.")
    for s in found:
        line = Text.assemble((display_safe(s.qualified_name), "bold"), "  ", (display_safe(s.kind), "yellow"), "  ")
        line.append(display_safe(f"{s.path}:{s.start_line}-{s.end_line}"), style="cyan")
        console.print(line)


def _print_hits(hits: list[Any], query: str, shown_lines: int) -> None:
    from rich.text import Text

    from navtui.index.tokens import query_terms

    console = _console()
    if not hits:
        console.print("No matches.")
        return
    words = sorted({*query_terms(query), *query.split()}, key=len, reverse=True)
    for hit in hits:
        header = Text(display_safe(f"{hit.path}:{hit.start_line}-{hit.end_line}"), style="bold cyan")
        if hit.symbol:
            header.append(f"  {display_safe(hit.symbol)}", style="yellow")
        header.append(f"  {hit.score:.2f}", style="dim")
        console.print(header)
        lines = display_safe(hit.text).split("\n")
        limit = len(lines) if shown_lines <= 0 else shown_lines
        width = len(str(hit.start_line + len(lines)))
        for offset, line in enumerate(lines[:limit]):
            # Text, never markup: file contents may contain [brackets] that Rich would read as styles.
            body = Text(line)
            body.highlight_words(words, style="bold magenta", case_sensitive=False)
            console.print(Text(f"{hit.start_line + offset:>{width}} ", style="dim") + body, soft_wrap=True)
        if len(lines) > limit:
            console.print(Text(f"{'':>{width}} … {len(lines) - limit} more lines", style="dim"))
        console.print()
