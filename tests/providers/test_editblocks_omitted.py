"""A long file's shown lines sent back with some left out in the middle: those lines are kept, not deleted."""

from __future__ import annotations

from navtui.providers.editblocks import BadBlock, SearchReplace, parse_reply, part_edit

LINES = [f"OPTION_{i:03d} = {i}" for i in range(300)]
CONFIG = "\n".join(LINES) + "\n"


def test_lines_left_out_in_the_middle_of_a_shown_run_are_kept() -> None:
    # Shown a 300-line config.py whole, the model sent lines 0-49 and 60-109 with OPTION_005 changed: a slip in
    # copying, not a request to delete 50-59, which the edit made of the block deleted.
    sent = LINES[0:50] + LINES[60:110]
    sent[5] = "OPTION_005 = 555"
    (block,) = parse_reply("config.py\n```python\n" + "\n".join(sent) + "\n```\n", {"config.py": CONFIG})
    assert isinstance(block, SearchReplace)
    for old, new in block.pairs:
        assert [line for line in old.splitlines() if line not in new.splitlines()] == ["OPTION_005 = 5"]
        assert "OPTION_005 = 555" in new.splitlines()


def test_a_block_whose_only_difference_is_lines_left_out_changes_nothing_it_is_refused() -> None:
    # Only lines left out, nothing changed: no edit can be told from a slip.
    sent = LINES[0:50] + LINES[60:110]
    assert part_edit("\n".join(sent) + "\n", [LINES]) is None
    (block,) = parse_reply("config.py\n```python\n" + "\n".join(sent) + "\n```\n", {"config.py": CONFIG})
    assert isinstance(block, BadBlock) and block.kind == "write"


def _changes(block: object) -> list[tuple[list[str], list[str]]]:
    assert isinstance(block, SearchReplace)
    out = []
    for old, new in block.pairs:
        before, after = old.splitlines(), new.splitlines()
        out.append(([line for line in before if line not in after], [line for line in after if line not in before]))
    return out


def test_a_new_line_after_the_lines_sent_back_is_added_not_put_in_place_of_the_next_one() -> None:
    # The top of a 300-line config.py sent back with a new setting after it: the new line was taken for a change
    # of the next line of the file (as "TIMEOUT = 45" is of "TIMEOUT = 30"), and OPTION_005 was gone.
    sent = [*LINES[0:5], "NEW_OPTION = 1"]
    (block,) = parse_reply("config.py\n```python\n" + "\n".join(sent) + "\n```\n", {"config.py": CONFIG})
    assert _changes(block) == [([], ["NEW_OPTION = 1"])]
    # The same lines with the next setting changed are that change, as before.
    sent = [*LINES[0:5], "OPTION_005 = 55"]
    (block,) = parse_reply("config.py\n```python\n" + "\n".join(sent) + "\n```\n", {"config.py": CONFIG})
    assert _changes(block) == [(["OPTION_005 = 5"], ["OPTION_005 = 55"])]


def test_a_new_line_before_the_lines_sent_back_is_added_not_put_in_place_of_the_one_before() -> None:
    sent = ["import os", *LINES[250:255]]
    (block,) = parse_reply("config.py\n```python\n" + "\n".join(sent) + "\n```\n", {"config.py": CONFIG})
    assert _changes(block) == [([], ["import os"])]


def test_a_new_line_before_the_lines_sent_of_an_excerpt_goes_before_them_not_before_the_gap() -> None:
    # Shown lines 10-14 and 200-204 of a long file; the model sent an import, then lines 200-204: the import goes
    # right before line 200, in that run, not after line 14 (the end of the run before).
    parts = [LINES[10:15], LINES[200:205]]
    pairs = part_edit("\n".join(["import os", *LINES[200:205]]) + "\n", parts)
    assert pairs is not None and len(pairs) == 1
    old, new = pairs[0]
    assert old.splitlines()[0] == "OPTION_200 = 200" and new.splitlines()[:2] == ["import os", "OPTION_200 = 200"]


def test_an_import_added_after_a_long_files_first_imports_keeps_the_next_one() -> None:
    # "import sys" after the first two imports of a long file began with the same word as the next line, "import
    # re", and was taken for a change of it: import re was gone.
    lines = ["import os", "import json", "import re", "", *LINES]
    pairs = part_edit("import os\nimport json\nimport sys\n", [lines])
    assert pairs is not None and len(pairs) == 1
    old, new = pairs[0]
    assert "import re" in new.splitlines() and "import sys" in new.splitlines()
    assert [line for line in old.splitlines() if line not in new.splitlines()] == []
