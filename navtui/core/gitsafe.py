"""Every git call navtui makes goes through here: git runs no program a repository configured.

A repository's config is untrusted (a cloned tarball ships one, a sandboxed command can write one), and git runs
programs named in it: ``core.fsmonitor`` at every ``status``, hooks, filter drivers on ``add``/``status``,
textconv and external diffs, pagers, editors, credential helpers, signing programs. ``-c`` settings outrank every
config file (includes too), so each of those keys is pinned to a harmless value on the command line; filter, diff
and merge *drivers* have names the repository picks, so their keys are listed first (``git config``, which runs
nothing) and pinned one by one. navtui's own environment loses every ``GIT_*`` variable (``GIT_DIR``,
``GIT_CONFIG_COUNT``, ``GIT_EXEC_PATH``, ``GIT_EXTERNAL_DIFF``, ...) but the author and committer identity.

    run_git(["status", "--porcelain=v1"], cwd)            # CompletedProcess[bytes]
    await run_git_async(["diff", "HEAD"], cwd)

Callers that start git themselves use ``safe_git_argv(args, drivers)`` and ``safe_git_env()``.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from navtui.core.programs import absolute_path_entries

# Pinned for every call. `:` as an editor is git's own "do not start one"; /dev/null/<hook> never exists.
_PINNED: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("core.editor", ":"),
    ("sequence.editor", ":"),
    ("core.askPass", ""),
    ("credential.helper", ""),  # an empty value clears the list of helpers
    ("core.sshCommand", "ssh"),
    ("core.gitProxy", ""),
    ("protocol.ext.allow", "never"),
    ("diff.external", ""),  # never run: diff-family commands also get --no-ext-diff
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("tag.forceSignAnnotated", "false"),
    ("push.gpgSign", "false"),
    ("log.showSignature", "false"),
    ("merge.verifySignatures", "false"),
    ("gc.auto", "0"),  # no background gc (and no pre-auto-gc hook)
    ("maintenance.auto", "false"),
    ("submodule.recurse", "false"),
    ("status.submoduleSummary", "false"),
    ("diff.submodule", "short"),  # a user's diff.submodule=diff would diff inside submodules with their drivers
    ("safe.bareRepository", "explicit"),  # a bare repository planted in the work tree is not picked up
    ("color.ui", "false"),
)

# What git reads from the environment that could point it at other programs, configs or repositories.
# GIT_* is dropped wholesale except the identity; these are the non-GIT_ ones it also reads.
_KEEP_GIT_VARS = frozenset(
    {
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_COMMITTER_DATE",
    }
)
_DROP_VARS = frozenset({"PAGER", "EDITOR", "VISUAL", "SSH_ASKPASS", "LESSOPEN", "LESSCLOSE", "PERL5OPT"})
_SET_VARS = {
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_EDITOR": ":",
    "GIT_SEQUENCE_EDITOR": ":",
    "GIT_TERMINAL_PROMPT": "0",
}

# Driver keys a repository may name freely: `filter.<x>.clean`, `diff.<x>.textconv`, `merge.<x>.driver`, ...
_DRIVER_KEY = re.compile(
    r"^(filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|merge\..+\.driver)$", re.IGNORECASE
)
_DRIVER_REGEXP = r"^(filter|diff|merge)\..*\.(clean|smudge|process|textconv|command|driver)$"

# Commands that would run diff.external or a textconv driver; they get --no-ext-diff --no-textconv.
_DIFF_COMMANDS = frozenset({"diff", "log", "show", "format-patch", "whatchanged"})
# Commands that only read: no optional locks (a `status` never rewrites the index behind the user's git).
_READ_ONLY_COMMANDS = frozenset(
    {"status", "diff", "log", "show", "rev-parse", "ls-files", "cat-file", "branch", "describe", "rev-list"}
)
# Commands that never run a driver: the driver listing is skipped for them.
_NO_DRIVERS = frozenset({"config", "rev-parse", "symbolic-ref", "for-each-ref", "cat-file", "ls-tree"})
# Leading options that take a separate value (`-C dir`), so the subcommand is found after them.
_OPTIONS_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})

DEFAULT_TIMEOUT = 10.0


def safe_git_env(
    base: Mapping[str, str] | None = None,
    *,
    read_only: bool = False,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """``base`` (navtui's environment by default) without what could make git run or read something else.

    ``extra`` is navtui's own setting for this call (``GIT_INDEX_FILE`` for a scratch index, ``GIT_DIR`` and
    ``GIT_WORK_TREE`` for a shadow repository), applied last; config variables are refused there, as they would
    undo the pinned settings.
    """
    source = os.environ if base is None else base
    env = {
        key: value
        for key, value in source.items()
        if (not key.startswith("GIT_") or key in _KEEP_GIT_VARS) and key not in _DROP_VARS
    }
    env.update(_SET_VARS)
    if "PATH" in env:  # git, and what git starts (ssh, a credential helper), never from the workspace
        env["PATH"] = absolute_path_entries(env["PATH"])
    if read_only:
        env["GIT_OPTIONAL_LOCKS"] = "0"
    for key, value in (extra or {}).items():
        if key.startswith("GIT_CONFIG") or key in ("GIT_EXEC_PATH", "GIT_EXTERNAL_DIFF", "GIT_SSH_COMMAND"):
            raise ValueError(f"{key} would undo navtui's safe git settings; pass settings to run_git instead")
        env[key] = value
    return env


def _subcommand_index(args: Sequence[str]) -> int:
    index = 0
    while index < len(args) and args[index].startswith("-"):
        index += 2 if args[index] in _OPTIONS_WITH_VALUE else 1
    return index


def safe_git_argv(args: Sequence[str], drivers: Iterable[str] = ()) -> list[str]:
    """``git`` with every program-running setting pinned, then ``args``.

    ``drivers``: the repository's driver keys (``repo_driver_keys``); each is pinned to an empty command.
    """
    pins: list[str] = []
    for key, value in _PINNED:
        pins += ["-c", f"{key}={value}"]
    for key in drivers:
        if not _DRIVER_KEY.match(key):
            continue
        pins += ["-c", f"{key}="]
        if key.lower().startswith("filter."):
            pins += ["-c", f"{key.rsplit('.', 1)[0]}.required=false"]
    rest = list(args)
    sub = _subcommand_index(rest)
    if sub < len(rest):
        name = rest[sub]
        if name in _DIFF_COMMANDS:
            rest[sub + 1 : sub + 1] = ["--no-ext-diff", "--no-textconv"]
        elif name == "stash" and rest[sub + 1 : sub + 2] == ["show"]:
            rest[sub + 2 : sub + 2] = ["--no-ext-diff", "--no-textconv"]
    return ["git", *pins, *rest]


def _subcommand(args: Sequence[str]) -> str:
    sub = _subcommand_index(args)
    return args[sub] if sub < len(args) else ""


def _is_read_only(args: Sequence[str]) -> bool:
    return _subcommand(args) in _READ_ONLY_COMMANDS


def _leading(args: Sequence[str]) -> list[str]:
    return list(args[: _subcommand_index(args)])


def _driver_query(leading: Sequence[str]) -> list[str]:
    return safe_git_argv([*leading, "config", "--null", "--get-regexp", _DRIVER_REGEXP])


def _parse_driver_keys(output: bytes) -> list[str]:
    keys = []
    for record in output.split(b"\0"):
        key = record.split(b"\n", 1)[0].decode("utf-8", "replace")
        if key and _DRIVER_KEY.match(key) and key not in keys:
            keys.append(key)
    return keys


def repo_driver_keys(cwd: Path, env: Mapping[str, str] | None = None, leading: Sequence[str] = ()) -> list[str]:
    """The filter/diff/merge driver keys the repository at ``cwd`` and its submodules configure
    (``git config``: runs nothing)."""
    env = dict(env) if env is not None else safe_git_env(read_only=True)
    try:
        out = subprocess.run(
            _driver_query(leading),
            cwd=cwd,
            env=env,
            capture_output=True,
            timeout=DEFAULT_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    keys = _parse_driver_keys(out.stdout)
    for config in module_configs(cwd, env.get("GIT_DIR")):
        keys += [key for key in _module_driver_keys(config, cwd, env) if key not in keys]
    return keys


def pointed_git_dir(dotgit: Path) -> Path | None:
    """The git dir a ``.git`` file names (``gitdir: ...``), or None when it names none."""
    try:
        line = dotgit.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    return (dotgit.parent / line.removeprefix("gitdir:").strip()).resolve()


def _git_dir_of(start: Path) -> Path | None:
    """The common git dir of the repository holding ``start`` (a worktree's or submodule's ``.git`` file
    followed), found on disk without running git."""
    for folder in (start, *start.parents):
        dotgit = folder / ".git"
        if dotgit.is_dir():
            return dotgit
        if dotgit.is_file():
            gitdir = pointed_git_dir(dotgit)
            if gitdir is None:
                return None
            try:
                common = (gitdir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return gitdir
            return (gitdir / common).resolve()
    return None


_MAX_MODULES = 200


def module_configs(cwd: Path | str, git_dir: str | None = None) -> list[Path]:
    """The config files of the submodules under the repository at ``cwd`` (or ``git_dir``), nested ones too."""
    roots: list[Path] = []
    if git_dir:
        roots.append((Path(cwd) / git_dir).resolve())
    found = _git_dir_of(Path(cwd).resolve())
    if found is not None and found not in roots:
        roots.append(found)
    configs: list[Path] = []
    pending = [root / "modules" for root in roots]
    while pending and len(configs) < _MAX_MODULES:
        current = pending.pop()
        try:
            children = sorted(current.iterdir())
        except OSError:
            continue
        for child in children:
            if not child.is_dir() or child.is_symlink():
                continue
            if (child / "config").is_file():
                configs.append(child / "config")
            pending.append(child / "modules" if (child / "HEAD").exists() else child)  # a/b lives in modules/a/b
    return configs


# config path -> (mtime_ns, size, keys); a file that includes others is read every time
_MODULE_KEYS: dict[Path, tuple[int, int, list[str]]] = {}


def _module_driver_keys(config: Path, cwd: Path | str, env: Mapping[str, str]) -> list[str]:
    try:
        info = config.stat()
    except OSError:
        return []
    cached = _MODULE_KEYS.get(config)
    if cached is not None and cached[:2] == (info.st_mtime_ns, info.st_size):
        return cached[2]
    argv = safe_git_argv(["config", "--file", str(config), "--includes", "--null", "--get-regexp", _DRIVER_REGEXP])
    try:
        out = subprocess.run(
            argv, cwd=cwd, env=dict(env), capture_output=True, timeout=DEFAULT_TIMEOUT, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    keys = _parse_driver_keys(out.stdout)
    try:
        includes = b"include" in config.read_bytes().lower()
    except OSError:
        includes = True
    if not includes:
        _MODULE_KEYS[config] = (info.st_mtime_ns, info.st_size, keys)
    return keys


def _env_for(args: Sequence[str], read_only: bool | None, env_extra: Mapping[str, str] | None) -> dict[str, str]:
    quiet = _is_read_only(args) if read_only is None else read_only
    return safe_git_env(read_only=quiet, extra=env_extra)


def run_git(
    args: Sequence[str],
    cwd: Path | str,
    *,
    input: bytes | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    check: bool = False,
    env_extra: Mapping[str, str] | None = None,
    read_only: bool | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Runs ``git ARGS`` in ``cwd`` safely; output captured as bytes.

    ``read_only`` (default: guessed from the subcommand) sets ``GIT_OPTIONAL_LOCKS=0``. Raises ``OSError``
    when git cannot start, ``subprocess.TimeoutExpired``, and ``CalledProcessError`` with ``check``.
    """
    env = _env_for(args, read_only, env_extra)
    drivers = [] if _subcommand(args) in _NO_DRIVERS else repo_driver_keys(Path(cwd), env, _leading(args))
    return subprocess.run(
        safe_git_argv(args, drivers),
        cwd=cwd,
        env=env,
        input=input,
        capture_output=True,
        timeout=timeout,
        check=check,
        stdin=None if input is not None else subprocess.DEVNULL,
    )


async def _run_async(
    argv: list[str], cwd: Path | str, env: dict[str, str], input: bytes | None, seconds: float
) -> tuple[int, bytes, bytes]:
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(input), seconds)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise subprocess.TimeoutExpired(argv, seconds) from None
    return process.returncode if process.returncode is not None else -1, out, err


async def run_git_async(
    args: Sequence[str],
    cwd: Path | str,
    *,
    input: bytes | None = None,
    timeout: float = DEFAULT_TIMEOUT,  # noqa: ASYNC109 (the same signature as run_git)
    check: bool = False,
    env_extra: Mapping[str, str] | None = None,
    read_only: bool | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """``run_git`` for the event loop: the same pins, the same errors."""
    env = _env_for(args, read_only, env_extra)
    drivers: list[str] = []
    if _subcommand(args) not in _NO_DRIVERS:
        _, listed, _ = await _run_async(_driver_query(_leading(args)), cwd, env, None, timeout)
        drivers = _parse_driver_keys(listed)
        configs = module_configs(cwd, env.get("GIT_DIR"))
        if configs:
            more = await asyncio.to_thread(
                lambda: [key for config in configs for key in _module_driver_keys(config, cwd, env)]
            )
            drivers += [key for key in dict.fromkeys(more) if key not in drivers]
    argv = safe_git_argv(args, drivers)
    code, out, err = await _run_async(argv, cwd, env, input, timeout)
    result = subprocess.CompletedProcess(argv, code, out, err)
    if check:
        result.check_returncode()
    return result
