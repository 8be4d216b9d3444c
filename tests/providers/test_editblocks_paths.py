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
