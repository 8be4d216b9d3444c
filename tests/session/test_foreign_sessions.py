"""pi's and omp's own sessions are navtui's too: listed (marked with where they live), resumed and continued in
place, exported; found in pi's ``--<cwd>--`` folders and in omp's home- and temp-relative ones."""

from __future__ import annotations

import io
import json
import os
from contextlib import redirect_stdout
from pathlib import Path
from types import SimpleNamespace

import pytest

from navtui.app.app import resume_hint
from navtui.session.cli import export_main, sessions_main
from navtui.session.foreign import omp_dir_names
from navtui.session.listing import encode_cwd, id_from_filename, resolve_session
from navtui.session.manager import SessionManager, list_sessions
from tests.session.helpers import user

FIXTURES = Path(__file__).parent / "fixtures"
PI_ID = json.loads((FIXTURES / "pi-v3.jsonl").read_text().splitlines()[0])["id"]
OMP_ID = "01a20876-b7eb-7104-9531-e1a9e5b2c44e"


def place(folder: Path, fixture: str, name: str, age: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes((FIXTURES / fixture).read_bytes())
    stamp = 1_700_000_000 - age
    os.utime(path, (stamp, stamp))
    return path


def pi_sessions() -> Path:
    return Path(os.environ["PI_CODING_AGENT_DIR"]) / "sessions"


def navtui_session(project: Path, prompt: str) -> SessionManager:
    manager = SessionManager.create(project)
    manager.append_message(user(prompt))
    manager.close()
    return manager


def test_pi_sessions_of_this_directory_are_listed_resumed_in_place_and_exported(project: Path) -> None:
    own = navtui_session(project, "navtui's own")
    pi_file = place(
        pi_sessions() / encode_cwd(project.resolve()), "pi-v3.jsonl", f"2026-01-01T00-00-00-000Z_{PI_ID}.jsonl"
    )
    place(pi_sessions() / "--elsewhere--", "pi-v3.jsonl", "2026-01-01T00-00-00-000Z_other.jsonl")
    rows = list_sessions(project)
    assert [(row.path, row.origin) for row in rows] == [(own.path, "navtui"), (pi_file, "pi")]
    assert resolve_session(project, PI_ID[:8]) == pi_file
    assert len(list_sessions(None)) == 3  # --all: every directory of navtui, pi and omp
    before = pi_file.read_bytes()
    resumed = SessionManager.open(resolve_session(project, PI_ID[:8]))
    resumed.append_message(user("continued from navtui"))
    resumed.close()
    assert resumed.path == pi_file and pi_file.read_bytes().startswith(before)  # appended where it lives
    assert b"continued from navtui" in pi_file.read_bytes()[len(before) :]
    out = io.StringIO()
    with redirect_stdout(out):
        assert sessions_main([], cwd=project) == 0
    header, *lines = out.getvalue().splitlines()
    assert header.split()[:3] == ["ID", "FROM", "MODIFIED"]
    assert sorted(line.split()[1] for line in lines) == ["navtui", "pi"]
    with redirect_stdout(io.StringIO()) as printed:
        assert export_main([PI_ID[:8], "--format", "md", "-o", str(project / "pi.md")], cwd=project) == 0
    assert (project / "pi.md").is_file() and "pi.md" in printed.getvalue()


def test_continue_takes_the_newest_of_navtui_s_and_pi_s_sessions(project: Path) -> None:
    own = navtui_session(project, "older")
    os.utime(own.path, (1_600_000_000, 1_600_000_000))
    pi_file = place(pi_sessions() / encode_cwd(project.resolve()), "pi-v3.jsonl", "2026-01-01T00-00-00-000Z_x.jsonl")
    recent = SessionManager.continue_recent(project)
    assert recent is not None and recent.path == pi_file


@pytest.mark.parametrize("where", ["home", "tmp"])
def test_omp_sessions_are_found_in_omp_s_folder_names(where: str, tmp_path: Path, monkeypatch) -> None:
    import tempfile

    monkeypatch.delenv("PI_CODING_AGENT_DIR")
    home, temp = tmp_path / "home", tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))  # the tests' own temp dir holds the home here
    if where == "home":
        project, folder_name = home / "work" / "my app", "-work-my app"
    else:
        project, folder_name = temp / "scratch" / "x", "-tmp-scratch-x"
    project.mkdir(parents=True, exist_ok=True)
    assert omp_dir_names(project)[0] == folder_name
    folder = home / ".omp" / "agent" / "sessions" / folder_name
    omp_file = place(folder, "omp-18.jsonl", f"2026-11-23T12-52-07-787Z_{OMP_ID}.jsonl")
    legacy = place(home / ".omp" / "agent" / "sessions" / encode_cwd(project.resolve()), "pi-v3.jsonl", "old.jsonl", 10)
    rows = list_sessions(project)
    assert [(row.path, row.origin, row.name) for row in rows][:1] == [(omp_file, "omp", "Explaining main.py")]
    assert [row.path for row in rows] == [omp_file, legacy]
    assert resolve_session(project, OMP_ID[:8]) == omp_file


def test_ids_that_share_their_first_eight_characters_are_listed_long_enough_to_resume(project: Path) -> None:
    # pi's and omp's ids are UUIDv7: their first 8 characters are the time, the same for sessions started within
    # the same minute. `navtui sessions` listed both as "01a20876" and the quit hint said `navtui -r 01a20876`,
    # which `-r` refuses as ambiguous.
    folder = pi_sessions() / encode_cwd(project.resolve())
    first = place(folder, "pi-v3.jsonl", f"2026-01-01T00-00-00-000Z_{PI_ID}.jsonl")
    second = place(folder, "pi-v3.jsonl", f"2026-01-01T00-00-30-000Z_{OMP_ID}.jsonl", age=10)
    second.write_text(second.read_text().replace(PI_ID, OMP_ID, 1))
    own = navtui_session(project, "navtui's own")
    out = io.StringIO()
    with redirect_stdout(out):
        assert sessions_main([], cwd=project) == 0
    shown = [line.split()[0] for line in out.getvalue().splitlines()[1:]]
    assert sorted(shown) == sorted([own.session_id[:8], PI_ID[:10], OMP_ID[:10]])  # "01a20876-8", "01a20876-b"
    assert {resolve_session(project, short) for short in shown} == {own.path, first, second}
    session = SessionManager.open(second)
    hint = resume_hint(SimpleNamespace(session=session, cwd=project))  # type: ignore[arg-type]  # what quitting prints
    assert hint is not None and hint.endswith(f"navtui -r {OMP_ID[:10]})")
    assert resolve_session(project, OMP_ID[:10]) == second


def test_an_id_is_listed_long_enough_to_resume_when_the_rows_are_cut(project: Path) -> None:
    # --limit (30 by default) keeps the newest rows: an id must still tell itself apart from the sessions cut off,
    # which `-r` looks among too (pi's UUIDv7 ids of the same minute shared their first 8 characters).
    folder = pi_sessions() / encode_cwd(project.resolve())
    place(folder, "pi-v3.jsonl", f"2026-01-01T00-00-30-000Z_{PI_ID}.jsonl")
    second = place(folder, "pi-v3.jsonl", f"2026-01-01T00-00-00-000Z_{OMP_ID}.jsonl", age=10)
    second.write_text(second.read_text().replace(PI_ID, OMP_ID, 1))
    out = io.StringIO()
    with redirect_stdout(out):
        assert sessions_main(["-n", "1"], cwd=project) == 0
    (shown,) = [line.split()[0] for line in out.getvalue().splitlines()[1:]]
    assert shown in (PI_ID[:10], OMP_ID[:10])  # "01a20876-8" or "01a20876-b", not the "01a20876" both start with
    assert id_from_filename(resolve_session(project, shown)).startswith(shown)


def test_a_named_pipe_or_a_device_in_pis_folder_holds_no_listing_and_no_continue(project: Path) -> None:
    """pi's folder is not navtui's: with the workspace at home, a sandboxed command may write ``~/.pi``. A named
    pipe there (opening it waits for a writer) or a link to ``/dev/zero`` (reading it never ends) held
    ``navtui sessions``, ``-c`` and the picker for ever; they are passed over."""
    import subprocess
    import sys

    folder = pi_sessions() / encode_cwd(project.resolve())
    good = place(folder, "pi-v3.jsonl", f"2026-01-01T00-00-00-000Z_{PI_ID}.jsonl", age=1000)
    os.mkfifo(folder / "2030-01-01T00-00-00-000Z_pipe.jsonl")
    os.utime(folder / "2030-01-01T00-00-00-000Z_pipe.jsonl", (1_800_000_000, 1_800_000_000))
    (folder / "2030-01-02T00-00-00-000Z_zero.jsonl").symlink_to("/dev/zero")
    code = (
        "import sys; from pathlib import Path; from navtui.session.manager import SessionManager, list_sessions\n"
        "from navtui.session.listing import summarize\n"
        "p = Path(sys.argv[1]); print([r.path.name for r in list_sessions(p)], [r.path.name for r in list_sessions(None)])\n"
        "print(SessionManager.continue_recent(p).path.name)\n"
        "print([summarize(f) for f in sorted(Path(sys.argv[2]).glob('2030*'))])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(project), str(folder)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"[{good.name!r}] [{good.name!r}]", good.name, "[None, None]"]
