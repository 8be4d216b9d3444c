"""A file in play named by another spelling of its path is the same file to the block reader."""

from __future__ import annotations

import pytest

from navtui.providers.editblocks import BadBlock, SearchReplace, Segment, WholeFile, parse_reply

CONFIG = '"""Settings."""\n\nTIMEOUT = 30\n\n' + "".join(f"OPTION_{i:03d} = {i}\n" for i in range(296))
FILES: dict[str, str | None] = {
    "a/config.py": CONFIG,
    "b/config.py": "TIMEOUT = 5\n",
    "notes.txt": None,
    "docs/notes.txt": "x\n",
}


def edits(segments: list[Segment]) -> list[Segment]:
    return [segment for segment in segments if isinstance(segment, BadBlock | WholeFile)]


@pytest.mark.parametrize("spelling", ["a/./config.py", "./a/config.py", "b/../a/config.py"])
def test_another_spelling_of_a_long_file_in_play_is_refused_as_the_path_itself_is(spelling: str) -> None:
    # Four lines sent back under a 300-line file's path are refused (5e8ede0); under "a/./config.py" they were a
    # new path's content, and reached write.
    reply = "{}\n```python\nTIMEOUT = 45\nRETRIES = 3\n```\n"
    (canonical,) = edits(parse_reply(reply.format("a/config.py"), FILES))
    (spelled,) = edits(parse_reply(reply.format(spelling), FILES))
    assert isinstance(canonical, BadBlock) and isinstance(spelled, BadBlock)
    assert spelled.path == "a/config.py" and spelled.why == canonical.why
    # The file's own first lines sent back changed are the edit of those lines (part_edit), under either spelling.
    lines = '{}\n```python\n"""Settings."""\nTIMEOUT = 45\n```\n'
    (edit,) = [s for s in parse_reply(lines.format(spelling), FILES) if isinstance(s, SearchReplace)]
    assert edit.path == "a/config.py" and CONFIG.replace(*edit.pairs[0]).startswith('"""Settings."""\n\nTIMEOUT = 45\n')


def test_another_spelling_of_a_file_shown_in_part_is_refused_as_the_path_itself_is() -> None:
    reply = "{}\n```\nall new\n```\n"
    (canonical,) = edits(parse_reply(reply.format("notes.txt"), FILES))
    (spelled,) = edits(parse_reply(reply.format("./docs/../notes.txt"), FILES))
    assert isinstance(canonical, BadBlock) and isinstance(spelled, BadBlock)
    assert spelled.path == "notes.txt" and spelled.why == canonical.why


def test_a_path_that_leaves_the_workspace_is_not_taken_for_a_file_in_play() -> None:
    (block,) = edits(parse_reply("../a/config.py\n```python\nTIMEOUT = 45\n```\n", FILES))
    assert block.path == "../a/config.py"  # type: ignore[union-attr]


MOVE_MAIN = (
    "from utils import parse_duration, shout, slug\n\nprint(slug(' Big Job '), parse_duration('3m'), shout('done'))\n"
)
NEW_MAIN = "from utils import slug, shout\nfrom timeparse import parse_duration\n\nprint(slug(' Big Job '), parse_duration('3m'), shout('done'))\n"


def test_a_path_comment_on_the_blocks_first_line_wins_over_the_last_file_a_sentence_names() -> None:
    # The 1.5B's reply in the eval's move_function: the sentence names main.py, then timeparse.py; the block says
    # "# main.py". Taken as timeparse.py, the block (which imports timeparse) was read as an example of its use and
    # main.py's new imports were never written.
    reply = (
        "2. Update the imports in `main.py` to import the `parse_duration` function from `timeparse.py`:\n"
        "```python\n# main.py\n" + NEW_MAIN + "```\n"
    )
    files: dict[str, str | None] = {
        "main.py": MOVE_MAIN,
        "utils.py": "def slug(t):\n    return t\n",
        "timeparse.py": "",
    }
    written = [s for s in parse_reply(reply, files) if isinstance(s, WholeFile)]
    assert [(w.path, w.content) for w in written] == [("main.py", NEW_MAIN)]
    # A comment that is no path ("# helpers") leaves the sentence's file as it was.
    plain = "Here is the new `main.py`:\n```python\n# helpers\n" + NEW_MAIN + "```\n"
    (block,) = [s for s in parse_reply(plain, files) if isinstance(s, WholeFile)]
    assert block.path == "main.py" and block.content.startswith("# helpers\n")
