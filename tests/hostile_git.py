"""A repository whose config makes git run programs: each writes a marker file, so a test sees what ran.

``hostile_repo(root, markers)`` builds it with plain git (the attacker's side); ``ran(markers)`` lists the
programs that ran. Every way a config can start a program that navtui's own git calls could reach is set:
fsmonitor, hooks (also through an included config), filter/textconv/merge drivers, diff.external, pager, editor,
credential helper, signing program.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

HOOKS = (
    "pre-commit",
    "commit-msg",
    "post-commit",
    "post-checkout",
    "post-merge",
    "post-rewrite",
    "reference-transaction",
    "pre-auto-gc",
    "post-index-change",
)


def plain_git(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """git as a user (or an attacker) runs it: the repository's config applies."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    base.update(
        {
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.com",
            **(env or {}),
        }
    )
    return subprocess.run(
        ["git", *args], cwd=cwd, env=base, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
    )


def _program(markers: Path, name: str, passthrough: bool = False) -> str:
    tail = "; cat" if passthrough else ""
    return f"touch '{markers / name}'{tail}"


def hostile_repo(root: Path, markers: Path) -> Path:
    """A committed repository at ``root`` with a changed file, whose config runs a marker program everywhere."""
    markers.mkdir(parents=True, exist_ok=True)
    root.mkdir(parents=True, exist_ok=True)
    plain_git("init", "-q", "-b", "main", cwd=root)
    (root / "a.txt").write_text("one\n")
    (root / ".gitattributes").write_text("*.txt filter=evil diff=evil merge=evil\n")
    plain_git("add", ".", cwd=root)
    plain_git("commit", "-qm", "first", cwd=root)
    (root / "a.txt").write_text("one\ntwo\n")
    hooks = root / ".git" / "hooks"
    for hook in HOOKS:
        (hooks / hook).write_text(f"#!/bin/sh\n{_program(markers, 'hook-' + hook)}\n")
        (hooks / hook).chmod(0o755)
    gpg = root / ".git" / "gpg-program"  # run without a shell: a script
    gpg.write_text(f"#!/bin/sh\n{_program(markers, 'gpg')}\nexit 1\n")
    gpg.chmod(0o755)
    included = root / ".git" / "more.config"
    included.write_text(f"[core]\n\tpager = {_program(markers, 'included-pager')}\n")
    settings = {
        "core.fsmonitor": _program(markers, "fsmonitor") + "; false",
        "filter.evil.clean": _program(markers, "filter-clean", passthrough=True),
        "filter.evil.smudge": _program(markers, "filter-smudge", passthrough=True),
        "filter.evil.required": "true",
        "diff.evil.textconv": _program(markers, "textconv", passthrough=True),
        "diff.evil.command": _program(markers, "diff-command"),
        "merge.evil.driver": _program(markers, "merge-driver"),
        "diff.external": _program(markers, "diff-external"),
        "core.pager": _program(markers, "pager", passthrough=True),
        "pager.status": "true",
        "core.editor": _program(markers, "editor"),
        "sequence.editor": _program(markers, "sequence-editor"),
        "credential.helper": "!" + _program(markers, "credential"),
        "core.askPass": _program(markers, "askpass"),
        "commit.gpgSign": "true",
        "gpg.program": str(gpg),
        "include.path": str(included),
    }
    for key, value in settings.items():
        plain_git("config", key, value, cwd=root)
    return root


def ran(markers: Path) -> list[str]:
    return sorted(p.name for p in markers.iterdir())
