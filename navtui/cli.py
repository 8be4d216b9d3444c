"""The ``navtui`` command: the full-screen app, the headless ``--print``/``--json`` modes, and subcommands.

Only ``argparse`` is imported at module level so ``navtui --help`` stays fast; everything else loads on use.
Exit codes: 0 success, 1 model/provider error, 2 usage or configuration error, 130 interrupted, 141 the reader of
our output went away (a pipe into `head`), quietly.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

SUBCOMMANDS = {
    "sessions": ("navtui.session.cli", "sessions_main", "list recent sessions for this directory"),
    "export": ("navtui.session.cli", "export_main", "export a session as HTML or Markdown"),
    "undo": ("navtui.checkpoints.cli", "undo_main", "put back the files the latest turn changed"),
    "themes": ("navtui.themes.cli", "themes_main", "list or validate themes"),
    "index": ("navtui.index.cli", "index_main", "build the repository index (.navtui/index.sqlite)"),
    "search": ("navtui.index.cli", "search_main", "search the repository index"),
    "mcp": ("navtui.mcp.cli", "mcp_main", "list, add, get, import or remove MCP servers"),
    "sandbox": ("navtui.tools.sandbox.cli", "sandbox_main", "show the shell sandbox, or run a command in it"),
}

EXIT_OK, EXIT_PROVIDER, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool the pipe's reader cut off


def build_parser() -> argparse.ArgumentParser:
    commands = "\n".join(f"  navtui {name:<9} {help_}" for name, (_m, _f, help_) in SUBCOMMANDS.items())
    parser = argparse.ArgumentParser(
        prog="navtui",
        description="A terminal coding agent for local models (Ollama) and Anthropic / OpenAI-compatible endpoints.",
        epilog=f"subcommands (navtui COMMAND --help):\n{commands}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("prompt", nargs="*", help="the first prompt (several words are joined into one)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--print",
        dest="print_mode",
        action="store_true",
        help="run the prompt (every word given) without a screen and print the answer",
    )
    mode.add_argument(
        "--json",
        dest="json_mode",
        action="store_true",
        help="as --print, but write every event as a JSON line (docs/events.md)",
    )
    parser.add_argument("-m", "--model", help="model name (e.g. qwen2.5-coder:7b, claude-sonnet-4-6, gpt-4o)")
    parser.add_argument("-p", "--provider", choices=["ollama", "anthropic", "openai"], help="default: from the model")
    parser.add_argument("-b", "--base-url", help="endpoint URL (Ollama, Anthropic or OpenAI-compatible)")
    parser.add_argument("--approval", choices=["ask", "write", "yolo"], help="when to ask before running tools")
    parser.add_argument(
        "--sandbox",
        choices=["workspace-write", "read-only", "off"],
        help="what shell commands may write (default workspace-write; network off unless sandbox.network)",
    )
    parser.add_argument(
        "-c", "--continue", dest="continue_session", action="store_true", help="resume the latest session here"
    )
    parser.add_argument(
        "-r", "--resume", nargs="?", const="", metavar="ID", help="resume a session by id or prefix (no id: pick one)"
    )
    parser.add_argument("--cwd", type=Path, help="work in this directory instead of the current one")
    parser.add_argument("--enable-handover", action="store_true", help="give the model the handover tool")
    parser.add_argument("--theme", help="theme for this run (see navtui themes list)")
    parser.add_argument(
        "--thinking",
        choices=["off", "minimal", "low", "medium", "high", "xhigh"],
        help="thinking level (default: a resumed session's, else the settings')",
    )
    parser.add_argument("--advisor", metavar="MODEL", help="turn the advisor on with this model")
    parser.add_argument(
        "--mcp-trust", action="store_true", help="start this repository's .mcp.json servers without asking (this run)"
    )
    parser.add_argument("--version", action="version", version=f"navtui {_version()}")
    return parser


def _version() -> str:
    from navtui import __version__

    return __version__


def main(argv: list[str] | None = None) -> int:
    from navtui.core.terminal import guarded_output

    # Everything written to stdout/stderr from here on is inert on a terminal (docs/trust.md, section 1).
    with guarded_output():
        return _guarded_main(argv)


def _guarded_main(argv: list[str] | None) -> int:
    try:
        code = _main(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()  # a pipe's last buffered lines: a closed reader shows here, not at interpreter exit
        return code
    except KeyboardInterrupt:
        print("navtui: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader stopped early (navtui themes list | head -3): end quietly, as CLI tools do. Point stdout
        # at /dev/null so the interpreter's last flush at exit does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_BROKEN_PIPE
    except Exception:  # a bug: its traceback goes through the same guard (an exception may quote a file name)
        import traceback

        traceback.print_exc()
        return EXIT_PROVIDER


def _protect_process() -> None:
    """No command navtui runs can read its keys from /proc (core/hardening.py)."""
    from navtui.core.hardening import protect_process
    from navtui.tools.shell.env import PROVIDER_KEYS

    protect_process(PROVIDER_KEYS)


def _without_unused_imports() -> None:
    """httpx's ``__init__`` imports its command-line client (``httpx._main``: click, ``rich.progress``, pygments'
    lexer table; 3.4 MB) whenever click is installed, and the MCP SDK installs it; navtui never runs that client.
    A ``None`` in ``sys.modules`` makes the import raise ``ImportError`` (the import system's documented meaning of
    ``None``), as when click is missing: httpx then defines its ``main`` as a stub that explains what is missing.

    markdown-it imports ``linkify_it`` whenever it is installed (Textual installs it) and builds a ``LinkifyIt``
    for each parser (0.3-0.5 MB of a process after the first reply: its module and compiled Unicode regexes);
    navtui's parsers are CommonMark with linkify off (``widgets/markdown/blocks.py``, ``session/export.py``), so
    markdown-it takes it as missing, as it is meant to."""
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
    sys.modules.setdefault("linkify_it", None)  # type: ignore[arg-type]


def _main(argv: list[str]) -> int:
    _without_unused_imports()
    if argv and argv[0] in SUBCOMMANDS:
        module_name, func_name, _help = SUBCOMMANDS[argv[0]]
        import importlib

        return int(getattr(importlib.import_module(module_name), func_name)(argv[1:]) or 0)
    # Intermixed: in "navtui --print explain main.py -m qwen" the prompt is "explain main.py", whatever the order.
    args = build_parser().parse_intermixed_args(argv)
    _protect_process()
    from navtui.app import gc_policy

    gc_policy.single_arena()  # before the first thread (Textual's, the runtime's, the network's)
    cwd = (args.cwd or Path.cwd()).expanduser()
    if not cwd.is_dir():
        print(f"navtui: --cwd {cwd} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    if not os.access(cwd, os.R_OK | os.X_OK):  # a folder of another user's: every first look inside it raised
        print(
            f"navtui: cannot open the directory {cwd}: permission denied (it needs read and search permission: "
            f"chmod u+rx {cwd} as its owner, or work in another directory)",
            file=sys.stderr,
        )
        return EXIT_USAGE

    from navtui.config.launch import LaunchOptions

    options = LaunchOptions(
        cwd=cwd.resolve(),
        model=args.model,
        provider=args.provider,
        base_url=args.base_url,
        approval=args.approval,
        sandbox=args.sandbox,
        continue_session=args.continue_session,
        resume=args.resume,
        enable_handover=args.enable_handover,
        theme=args.theme,
        thinking=args.thinking,
        advisor=args.advisor,
        prompt=" ".join(args.prompt) or None,
        mcp_trust=args.mcp_trust,
    )
    if args.print_mode or args.json_mode:
        flag = "--json" if args.json_mode else "--print"
        from navtui.headless import piped_input, run_headless, with_piped_input

        prompt = " ".join(args.prompt).strip()
        piped = piped_input(sys.stdin.buffer) if sys.stdin is not None else None  # git diff | navtui --print …
        if piped is not None:
            if piped.cut:
                print(f"navtui: warning: {piped.cut_note}", file=sys.stderr)
            prompt = with_piped_input(prompt, piped)
        if not prompt.strip():
            print(f'navtui: {flag} needs a prompt, e.g. navtui {flag} "explain main.py"', file=sys.stderr)
            return EXIT_USAGE

        if options.resume == "":  # no picker without a screen: take the latest session
            options.resume, options.continue_session = None, True
        return run_headless(options, prompt, json_mode=args.json_mode)
    gc_policy.hold_until_first_frame()
    from navtui.app.app import run_app

    return run_app(options)


if __name__ == "__main__":
    raise SystemExit(main())
