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
