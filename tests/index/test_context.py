"""The context note injected before a session's first prompt."""

from __future__ import annotations

from pathlib import Path

from navtui.index import build_index, context_note
from navtui.index.note import estimate_tokens
from tests.index.conftest import write


def test_the_note_holds_the_relevant_chunks_with_path_and_line_headers(repo: Path) -> None:
    build_index(repo)
    note = context_note(repo, "Why does parseArgs ignore the last argument?", token_budget=2000)
    assert note is not None
    assert note.text.startswith("<repository_context>\n") and note.text.endswith("</repository_context>")
    assert "### src/cli.ts:3-10 (parseArgs)\n```typescript\n/** Turns argv into options. */" in note.text
    assert note.files[0] == "src/cli.ts"
    assert note.hits[0].symbol == "parseArgs"
    assert note.tokens == estimate_tokens(note.text) <= 2000


def test_the_note_stays_within_the_token_budget(repo: Path) -> None:
    body = "\n".join(f"    total_frobnication += frobnicate_widget({i})" for i in range(50))
    write(repo, "src/widgets.py", f"def frobnicate_all_widgets():\n{body}\n")
    build_index(repo)
    roomy = context_note(repo, "frobnicate widget", token_budget=4000)
    tight = context_note(repo, "frobnicate widget", token_budget=300)
    assert roomy is not None and tight is not None
    assert "src/widgets.py:1-51" in roomy.text
    assert tight.tokens <= 300 < roomy.tokens
    assert tight.hits[0].path == "src/widgets.py" and tight.hits[0].end_line < 51  # trimmed, not dropped


def test_no_note_without_an_index_or_without_a_match(repo: Path) -> None:
    assert context_note(repo, "parseArgs", token_budget=2000) is None
    build_index(repo)
    assert context_note(repo, "zebra quokka", token_budget=2000) is None
    assert context_note(repo, "parseArgs", token_budget=5) is None  # not even a few lines fit


def test_fences_inside_markdown_chunks_do_not_break_the_note(repo: Path) -> None:
    build_index(repo)
    note = context_note(repo, "frobnicator installer usage", token_budget=2000)
    assert note is not None and note.files == ["docs/guide.md"]
    assert "````markdown\n# Guide" in note.text and "\n````\n" in note.text
