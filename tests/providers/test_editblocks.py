"""Reading edit blocks leniently: every shape small models write, and what must stay text."""

from __future__ import annotations

import pytest

from navtui.providers.editblocks import (
    BadBlock,
    BlockReader,
    Command,
    Prose,
    SearchReplace,
    Segment,
    Unchanged,
    WholeFile,
    parse_reply,
    part_edit,
    sentence_path,
    shown_parts,
)

CALC = "def add(a, b):\n    return a - b\n"
FILES: dict[str, str | None] = {"calc.py": CALC, "test_calc.py": "from calc import add\nassert add(2, 3) == 5\n"}
FIXED = "def add(a, b):\n    return a + b\n"


def edits(segments: list[Segment]) -> list[Segment]:
    return [s for s in segments if not isinstance(s, Prose)]


def prose(segments: list[Segment]) -> str:
    return "".join(s.text for s in segments if isinstance(s, Prose))


@pytest.mark.parametrize(
    "reply",
    [
        "calc.py\n```python\n" + FIXED + "```\n",  # the protocol's own form
        "Here is the fix.\n\ncalc.py\n```\n" + FIXED + "```",  # no info string, prose before
        "**calc.py**\n```python\n" + FIXED + "```",
        "`calc.py`:\n```py\n" + FIXED + "```",
        "### calc.py\n```python\n" + FIXED + "```",
        "File: calc.py\n\n```python\n" + FIXED + "```",  # a blank line between the path and the fence
        "Here is the updated `calc.py`:\n```python\n" + FIXED + "```",  # the path at the end of a sentence
        "```python calc.py\n" + FIXED + "```",  # the path in the info string
        "```calc.py\n" + FIXED + "```",
        "```python:calc.py\n" + FIXED + "```",
        "```python\n# calc.py\n" + FIXED + "```",  # a comment naming the file: not part of it
        "./calc.py\n```python\n" + FIXED + "```",
        "src/app/calc.py\n```python\n" + FIXED + "```",  # a bogus directory in front of the one file of that name
        "calc.py\n```python\n" + FIXED,  # the closing fence never came (the reply ended)
        "```\ncalc.py\n```\n```python\n" + FIXED + "```",  # the path in a fence of its own (the 1.5B, rename)
    ],
)
def test_whole_file_shapes(reply: str) -> None:
    assert edits(parse_reply(reply, FILES)) == [
        WholeFile("calc.py", FIXED, raw=edits(parse_reply(reply, FILES))[0].raw)
    ]  # type: ignore[union-attr]


def test_a_fence_holding_only_a_path_is_text_when_no_block_follows_and_content_when_that_file_was_asked_for() -> None:
    segments = parse_reply("```\ncalc.py\n```\n", FILES)
    assert not edits(segments) and prose(segments).strip() == "calc.py"
    files: dict[str, str | None] = {**FILES, "answer.txt": ""}
    (block,) = edits(parse_asked("```\ncalc.py\n```\n", files))
    assert isinstance(block, WholeFile) and block.path == "answer.txt" and block.content == "calc.py\n"


def parse_asked(reply: str, files: dict[str, str | None]) -> list[Segment]:
    reader = BlockReader(files, asked="answer.txt")
    return [*reader.feed(reply), *reader.finish()]


def test_a_block_without_a_path_is_the_one_file_in_play() -> None:
    reply = "The fix:\n```python\n" + FIXED + "```\n"
    (block,) = edits(parse_reply(reply, {"calc.py": CALC}))
    assert isinstance(block, WholeFile) and block.path == "calc.py" and block.content == FIXED


def test_a_block_without_a_path_among_several_files_is_the_file_it_plainly_is() -> None:
    long = "".join(f"def f{i}():\n    return {i}\n" for i in range(10))
    files: dict[str, str | None] = {"a.py": long, "b.py": "print('b')\n" * 10}
    (block,) = edits(parse_reply("```python\n" + long.replace("return 3", "return 33") + "```", files))
    assert isinstance(block, WholeFile) and block.path == "a.py"


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("```bash\npython3 test_calc.py\n```", "python3 test_calc.py"),
        ("```sh\n$ python3 test_calc.py\n```", "python3 test_calc.py"),
        ("```console\n$ ls\ncalc.py\n$ python3 test_calc.py\n```", "ls\npython3 test_calc.py"),  # output lines dropped
        ("Run it:\n```\npython3 hello.py\n```", "python3 hello.py"),  # no info string, a command line
        ("Run it with python3 test_calc.py:\n```bash\npython3 test_calc.py\n```", "python3 test_calc.py"),
        ("```bash\n# count the rows\nwc -l data.csv\n```", "# count the rows\nwc -l data.csv"),
    ],
)
def test_commands(reply: str, expected: str) -> None:
    (block,) = edits(parse_reply(reply, FILES))
    assert isinstance(block, Command) and block.command == expected


def test_a_script_named_before_a_bash_fence_is_a_file() -> None:
    (block,) = edits(parse_reply("run.sh\n```bash\necho hi\n```", FILES))
    assert isinstance(block, WholeFile) and block.path == "run.sh" and block.content == "echo hi\n"


@pytest.mark.parametrize(
    "reply",
    [
        "calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```",
        "calc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n",  # no fence
        "calc.py\n```\n<<<<<<<SEARCH\n    return a - b\n=====\n    return a + b\n>>>>>>>REPLACE\n```",  # tight markers
        "calc.py\n```\n<<<<<<< ORIGINAL\n    return a - b\n=======\n    return a + b\n>>>>>>> UPDATED\n```",
        "calc.py\n```\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n```",  # no end marker
        "```\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```",  # no path: found
    ],
)
def test_search_replace_shapes(reply: str) -> None:
    (block,) = edits(parse_reply(reply, FILES))
    assert isinstance(block, SearchReplace)
    assert block.path == "calc.py" and block.pairs == [("    return a - b\n", "    return a + b\n")]


def test_several_sections_in_one_fence() -> None:
    reply = "calc.py\n```\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n```"
    (block,) = edits(parse_reply(reply, FILES))
    assert isinstance(block, SearchReplace) and block.pairs == [("a\n", "b\n"), ("c\n", "d\n")]


def test_a_search_without_a_divider_is_a_bad_block_that_says_why() -> None:
    (block,) = edits(parse_reply("calc.py\n```\n<<<<<<< SEARCH\n    return a - b\n```", FILES))
    assert isinstance(block, BadBlock) and block.path == "calc.py" and "=======" in block.why


def test_a_whole_file_that_leaves_code_out_is_refused() -> None:
    original = "".join(f"def f{i}():\n    return {i}\n" for i in range(10))
    reply = "a.py\n```python\ndef f0():\n    return 100\n# ... rest of the code unchanged ...\n```"
    (block,) = edits(parse_reply(reply, {"a.py": original}))
    assert isinstance(block, BadBlock) and "rest of the code" in block.why


def test_a_file_that_already_reads_so_is_no_edit() -> None:
    # A small model that repeats its file after "Replaced calc.py" must not loop: nothing to apply, the turn ends.
    assert edits(parse_reply("calc.py\n```python\n" + CALC + "```\nDone.", FILES)) == [
        Unchanged("calc.py", raw="calc.py\n```python\n" + CALC + "```")
    ]


@pytest.mark.parametrize(
    "reply",
    [
        "The function is:\n```python\ndef add(a, b):\n    return a - b\n```\nIt subtracts.",  # a quote, no path
        "Use it like this:\n```python\nfrom calc import add\nprint(add(1, 2))\n```",  # a sample, two files in play
        '```json\n{"name": "x"}\n```',
        "Output:\n```\nhello world\n```",  # not a command, no path
    ],
)
def test_samples_and_quotes_stay_text(reply: str) -> None:
    segments = parse_reply(reply, FILES)
    assert edits(segments) == [] and "```" in prose(segments)


def test_a_quote_without_a_path_from_the_one_file_in_play_stays_text() -> None:
    original = "import sys\n\n\ndef main():\n    print(sys.argv)\n\n\nmain()\n"
    reply = "It prints its arguments:\n```python\ndef main():\n    print(sys.argv)\n```"
    assert edits(parse_reply(reply, {"app.py": original})) == []


def test_a_quote_from_a_long_file_named_in_a_sentence_stays_text() -> None:
    original = "".join(f"line {i}\n" for i in range(40))
    reply = "In notes.txt:\n```\nline 3\nline 4\n```\nthese two lines matter."
    assert edits(parse_reply(reply, {"notes.txt": original})) == []


def test_a_reply_cut_off_inside_a_block_is_not_applied() -> None:
    (block,) = edits(parse_reply("calc.py\n```python\ndef add(a, b):\n", FILES, cut_off=True))
    assert isinstance(block, BadBlock) and "cut off" in block.why


def test_prose_streams_before_the_reply_ends_and_a_block_is_held_until_it_closes() -> None:
    reader = BlockReader(FILES)
    first = reader.feed("I will fix the subtraction in add. ")
    assert prose(first) == "I will fix the subtraction in add. "
    assert reader.feed("\n\ncalc.py\n```python\ndef add(a, b):\n") == [Prose("\n")]  # the line's end
    (block,) = reader.feed("    return a + b\n```\n")
    assert isinstance(block, WholeFile) and block.content == FIXED
    assert reader.finish() == []


def test_any_chunking_gives_the_same_segments() -> None:
    reply = (
        "Fixing it.\n\ncalc.py\n```python\n" + FIXED + "```\n\nThen:\n```bash\npython3 test_calc.py\n```\nDone soon."
    )
    whole = parse_reply(reply, FILES)
    for size in (1, 2, 3, 7, 16):
        reader = BlockReader(FILES)
        pieces: list[Segment] = []
        for start in range(0, len(reply), size):
            pieces.extend(reader.feed(reply[start : start + size]))
        pieces.extend(reader.finish())
        assert edits(pieces) == edits(whole) and prose(pieces) == prose(whole)


# ---------------------------------------------------------------- real replies
# Qwen2.5-Coder 1.5B (q4, llama-server --jinja -c 4096, temperature 0) to the protocol's first request on the
# eval's tasks (bench/eval_tasks.py), copied as they came.

REAL_CREATE_RUN = 'hello.py\n```python\nprint("hello world")\n```\n\n```bash\npython3 hello.py\n```'
REAL_FIX_TEST = (
    "The bug in `calc.py` is that it subtracts `a` from `b` instead of multiplying them. To fix this, change the "
    "`add` function to `mul` and run the test again.\n\n```bash\npython3 test_calc.py\n```\n\nThe test should "
    "pass now."
)
REAL_RENAME = (
    "To rename the function `compute_total` to `sum_prices` everywhere in the project, you need to modify the "
    "`shop/cart.py` and `shop/prices.py` files. Here's the updated content for each file:\n\n**shop/cart.py**\n"
    "```python\nfrom shop.prices import sum_prices\n\n\ndef cart_total(items):\n    return sum_prices([price for _, "
    "price in items])\n```\n\n**shop/prices.py**\n```python\ndef sum_prices(prices):\n    return sum(prices)\n```\n\n"
    "After renaming the function, you can run the Python script `main.py` to see the updated output:\n\n```bash\n"
    "python3 main.py\n```\n\nThe output should now reflect the changes in the function names."
)
REAL_READ_ANSWER = "README.md\n```\nProject codeword: amber-falcon-42\n\nThis project is a demo.\n```"


def test_real_create_and_run() -> None:
    segments = parse_reply(REAL_CREATE_RUN, {"hello.py": "", "notes.txt": "nothing here\n"})
    assert [type(s) for s in edits(segments)] == [WholeFile, Command]
    assert edits(segments)[0] == WholeFile("hello.py", 'print("hello world")\n', raw=edits(segments)[0].raw)  # type: ignore[union-attr]
    assert edits(segments)[1].command == "python3 hello.py"  # type: ignore[union-attr]


def test_real_fix_described_but_not_written_is_a_command_and_prose() -> None:
    segments = parse_reply(REAL_FIX_TEST, FILES)
    assert [getattr(s, "command", None) for s in edits(segments)] == ["python3 test_calc.py"]
    assert prose(segments).startswith("The bug in `calc.py`") and prose(segments).endswith("The test should pass now.")


def test_real_rename_in_bold_paths() -> None:
    files: dict[str, str | None] = {
        "main.py": "from shop.prices import compute_total\n",
        "shop/cart.py": "from shop.prices import compute_total\n",
        "shop/prices.py": "def compute_total(prices):\n    return sum(prices)\n",
    }
    cart, prices, command = edits(parse_reply(REAL_RENAME, files))
    assert isinstance(cart, WholeFile) and cart.path == "shop/cart.py" and "sum_prices([price" in cart.content
    assert isinstance(prices, WholeFile) and prices.content == "def sum_prices(prices):\n    return sum(prices)\n"
    assert isinstance(command, Command) and command.command == "python3 main.py"


def test_real_file_copied_out_unchanged() -> None:
    files: dict[str, str | None] = {
        "README.md": "Project codeword: amber-falcon-42\n\nThis project is a demo.\n",
        "answer.txt": "",
    }
    (block,) = edits(parse_reply(REAL_READ_ANSWER, files))
    assert isinstance(block, Unchanged) and block.path == "README.md"


# The second round: the paths written in the prompt's attachment form (``@path``), as the user typed them.
REAL_RENAME_AT_PATHS = (
    "To rename the function `compute_total` to `sum_prices` in all files, I'll make the following changes:\n\n"
    "@shop/prices.py\n```\ndef sum_prices(prices):\n    return sum(prices)\n```\n\n@shop/cart.py\n```\nfrom "
    "shop.prices import sum_prices\n\n\ndef cart_total(items):\n    return sum_prices([price for _, price in items])\n"
    "```\n\n@main.py\n```\nfrom shop.cart import cart_total\nfrom shop.prices import sum_prices\n\nprint(cart_total(["
    "('tea', 3), ('cake', 4)]), sum_prices([1, 2]))\n```\n\nNow, running `python3 main.py` will compute the total "
    "prices correctly."
)


def test_real_rename_with_at_paths_writes_all_three_files() -> None:
    files: dict[str, str | None] = {
        "shop/prices.py": "def compute_total(prices):\n    return sum(prices)\n",
        "shop/cart.py": "from shop.prices import compute_total\n\n\ndef cart_total(items):\n    return compute_total([price for _, price in items])\n",
        "main.py": "from shop.cart import cart_total\nfrom shop.prices import compute_total\n\nprint(1)\n",
    }
    blocks = edits(parse_reply(REAL_RENAME_AT_PATHS, files))
    assert [(type(b), getattr(b, "path", None)) for b in blocks] == [
        (WholeFile, "shop/prices.py"),
        (WholeFile, "shop/cart.py"),
        (WholeFile, "main.py"),
    ]
    assert all("compute_total" not in b.content for b in blocks)  # type: ignore[union-attr]


REAL_RENAME_STEPS = (
    "To rename the function `compute_total` to `sum_prices` in the `shop/cart.py` and `shop/prices.py` files, and "
    "then run `python3 main.py`, follow these steps:\n\n1. Open the `shop/cart.py` file and replace the line:\n"
    "```python\n   def compute_total(prices):\n```\n   with:\n```python\n   def sum_prices(prices):\n```\n\n2. Open the "
    "`shop/prices.py` file and replace the line:\n```python\n   def compute_total(prices):\n```\n   with:\n```python\n"
    "   def sum_prices(prices):\n```\n\n3. Save the changes to both files.\n"
)


def test_real_instructions_in_prose_never_overwrite_a_file() -> None:
    # The 1.5B's second try at the rename: steps for the user. Its snippets named in a sentence must stay text,
    # never a two-line file written over with one line of it.
    files: dict[str, str | None] = {
        "shop/cart.py": "from shop.prices import compute_total\n\n\ndef cart_total(items):\n    return 1\n",
        "shop/prices.py": "def compute_total(prices):\n    return sum(prices)\n",
    }
    assert edits(parse_reply(REAL_RENAME_STEPS, files)) == []


def test_a_piece_of_a_file_under_its_path_is_refused_not_written() -> None:
    long = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
    (block,) = edits(parse_reply("calc.py\n```python\n    return a + b\n```", {"calc.py": long}))
    assert isinstance(block, BadBlock) and block.kind == "write" and "leaves part of the file out" in block.why


OPTIONS = "".join(f"OPTION_{i:03d} = {i * 7 % 101}  # option {i}\n" for i in range(296))
CONFIG = '"""Settings for the demo service."""\n\nTIMEOUT = 30\n\n' + OPTIONS  # the eval's edit_big
# The 1.5B's block for it (eval edit_big, 2 of 2 runs): the first lines it was shown, blank lines dropped, TIMEOUT
# changed, under the file's path. Written, it deleted 296 lines of the user's file; refused, the model gave up.
FIRST_LINES = (
    'config.py\n```python\n"""Settings for the demo service."""\nTIMEOUT = 45\nOPTION_000 = 0  # option 0\n'
    "OPTION_001 = 7  # option 1\n```\n"
)
CHANGED = '"""Settings for the demo service."""\n\nTIMEOUT = 45\n\nOPTION_000 = 0  # option 0\n'


def _excerpt(first: int, last: int) -> str:
    """files_in_play.py's note for config.py shown as its lines ``first``..``last`` (1-based)."""
    lines = CONFIG.splitlines()[first - 1 : last]
    numbered = "\n".join(f"{first + i}: {line}" for i, line in enumerate(lines))
    return f"300 lines, too long to show whole; the lines that mention TIMEOUT, with their line numbers:\n{numbered}"


def test_a_few_lines_of_a_long_file_sent_back_changed_are_the_change_of_those_lines() -> None:
    parts = {"config.py": shown_parts(_excerpt(1, 7))}
    assert parts["config.py"][0][:3] == ['"""Settings for the demo service."""', "", "TIMEOUT = 30"]
    # Shown only as the lines that matter, or whole: the block changes the lines it sends back, blank lines and
    # the lines it left out kept, as a search/replace of what was shown.
    for files, kwargs in (({"config.py": None}, {"parts": parts}), ({"config.py": CONFIG}, {})):
        (block,) = edits(parse_reply(FIRST_LINES, files, **kwargs))  # type: ignore[arg-type]
        assert isinstance(block, SearchReplace) and block.path == "config.py"
        ((old, new),) = block.pairs
        assert CONFIG.count(old) == 1 and CONFIG.replace(old, new) == CONFIG.replace("TIMEOUT = 30", "TIMEOUT = 45")
        assert new == CHANGED
    # The same lines unchanged: nothing to do. A short file written out shorter is still a new version of it
    # (the protocol's own form), and a long file sent whole with one line changed is written.
    same = FIRST_LINES.replace("TIMEOUT = 45", "TIMEOUT = 30")
    assert isinstance(edits(parse_reply(same, {"config.py": None}, parts=parts))[0], Unchanged)
    (short,) = edits(parse_reply("calc.py\n```python\ndef add(a, b):\n```\n", {"calc.py": CALC + CALC}))
    assert isinstance(short, WholeFile)
    whole = CONFIG.replace("TIMEOUT = 30", "TIMEOUT = 45")
    (written,) = edits(parse_reply("config.py\n```python\n" + whole + "```\n", {"config.py": CONFIG}))
    assert isinstance(written, WholeFile) and written.content == whole


def test_part_edit_keeps_what_was_not_sent_and_refuses_what_does_not_follow_the_shown_lines() -> None:
    far = [f"LIMIT_{i} = {i}" for i in range(5)]
    parts = [CONFIG.splitlines()[:7], far]  # two runs shown, a gap between them
    # Only the second run sent back, with its numbers and a changed line: one pair within that run.
    sent = "\n".join(f"{200 + i}: {line}" for i, line in enumerate(far)).replace("LIMIT_2 = 2", "LIMIT_2 = 9")
    ((old, new),) = part_edit(sent, parts) or [("", "")]
    assert old == "LIMIT_0 = 0\nLIMIT_1 = 1\nLIMIT_2 = 2\nLIMIT_3 = 3\nLIMIT_4 = 4\n"
    assert new == old.replace("LIMIT_2 = 2", "LIMIT_2 = 9")
    # Both runs, the "..." between them copied too, a line added after the first: each run its own pair.
    both = "\n".join([*parts[0][:3], "RETRIES = 3", *parts[0][3:], "...", *far])
    assert part_edit(both, parts) == [(_join(parts[0][1:5]), _join([*parts[0][1:3], "RETRIES = 3", *parts[0][3:5]]))]
    # Nothing in common (a line of its own), more changed than kept, or a change across the gap: no edit.
    assert part_edit("TIMEOUT = 45\n", parts) is None
    assert part_edit("TIMEOUT = 45\nA = 1\nB = 2\nOPTION_000 = 0  # option 0\n", parts) is None
    assert part_edit("\n".join([*parts[0][:6], "X = 1", *far[1:]]), parts) is None


def test_a_whole_file_block_that_cannot_be_read_as_an_edit_is_refused_with_the_block_to_send() -> None:
    # Shown config.py's first lines, the block holds only the changed line: it cannot say where it goes, so it is
    # refused, and the reason holds the search/replace block made of it and the shown line it changes.
    parts = {"config.py": shown_parts(_excerpt(1, 7))}
    (block,) = edits(parse_reply("config.py\n```python\nTIMEOUT = 45\n```\n", {"config.py": None}, parts=parts))
    assert isinstance(block, BadBlock) and block.kind == "write" and "shown to you only in part" in block.why
    expected = "config.py\n```\n<<<<<<< SEARCH\nTIMEOUT = 30\n=======\nTIMEOUT = 45\n>>>>>>> REPLACE\n```"
    assert block.why.endswith(expected)
    # Shown whole, a long file's few lines that do not follow it are refused the same way.
    (whole,) = edits(parse_reply("config.py\n```python\nTIMEOUT = 45\nDEBUG = 1\n```\n", {"config.py": CONFIG}))
    assert isinstance(whole, BadBlock) and "has 2 lines where the file has 300" in whole.why
    assert whole.why.endswith(expected)


def _join(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def test_a_whole_file_of_a_placeholder_is_refused() -> None:
    # The 1.5B's answer to "Delete the file debug.log": the log written over with one placeholder line.
    log = "old log line\n" * 20
    (block,) = edits(parse_reply("debug.log\n```\nrest unchanged\n```", {"debug.log": log}))
    assert isinstance(block, BadBlock) and "rest unchanged" in block.why


def test_a_block_without_a_path_that_keeps_every_line_of_a_file_is_its_new_version() -> None:
    # The 1.5B on the eval's gitignore task: no path, no language, the old line and the two new ones.
    (block,) = edits(parse_reply("```\n*.pyc\n__pycache__/\n*.log\n```\n", {".gitignore": "*.pyc\n"}))
    assert block == WholeFile(".gitignore", "*.pyc\n__pycache__/\n*.log\n", raw=block.raw)  # type: ignore[union-attr]
    files: dict[str, str | None] = {"a.txt": "x = 1\n", "b.txt": "y = 2\n"}
    (block,) = edits(parse_reply("```\ny = 2\nz = 3\n```\n", files))
    assert isinstance(block, WholeFile) and block.path == "b.txt"


def _shapes(segments: list[Segment]) -> list[tuple[str, str]]:
    return [
        (s.path, s.content) if isinstance(s, WholeFile) else ("$", getattr(s, "command", "")) for s in edits(segments)
    ]


def test_real_fences_indented_as_list_items_lose_that_indentation() -> None:
    # The 1.5B's numbered steps (eval move_function): each fence and each of its lines three spaces in.
    reply = (
        "2. Open the `timeparse.py` file and add the following content:\n"
        "   ```python\n"
        "   def parse_duration(text):\n"
        "       units = {'s': 1, 'm': 60}\n"
        "\n"
        "       return int(text[:-1]) * units[text[-1]]\n"
        "   ```\n\n"
        "3. Run it:\n   ```bash\n   python3 main.py\n   ```\n"
    )
    new = "def parse_duration(text):\n    units = {'s': 1, 'm': 60}\n\n    return int(text[:-1]) * units[text[-1]]\n"
    assert _shapes(parse_reply(reply, {"timeparse.py": ""})) == [("timeparse.py", new), ("$", "python3 main.py")]


def test_an_indented_fence_whose_lines_are_not_all_indented_keeps_them_as_written() -> None:
    reply = "1. The fix:\n\n   calc.py\n   ```python\ndef add(a, b):\n    return a + b\n   ```\n"
    assert _shapes(parse_reply(reply, FILES)) == [("calc.py", FIXED)]


LISTS = "def chunk(items, size):\n    return [items[i:i + size] for i in range(0, len(items) - size + 1, size)]\n"
TEST_LISTS = "from lists import chunk\n\nassert chunk([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]\nprint('ok')\n"
# The 1.5B's reply in the eval (test_and_fix): a long sentence naming the test file, then a block that mixes the
# test with a copy of chunk. Guessed by likeness, it went to lists.py, which then imported itself.
MIXED = (
    "from lists import chunk\n\n" + LISTS + "\nassert chunk([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]\nprint('ok')\n"
)


def _streamed(reply: str, files: dict[str, str | None]) -> list[Segment]:
    reader = BlockReader(files)
    out: list[Segment] = []
    for start in range(0, len(reply), 3):  # as a server streams it: a few characters at a time
        out.extend(reader.feed(reply[start : start + 3]))
    return edits([*out, *reader.finish()])


def test_real_a_long_sentence_naming_one_file_before_a_block_is_read_as_its_path() -> None:
    files: dict[str, str | None] = {"lists.py": LISTS, "test_lists.py": TEST_LISTS}
    long = "To add a test to `test_lists.py` that `chunk([1, 2, 3, 4, 5], 2)` gives `[[1, 2], [3, 4], [5]]`, "
    told = long + "you can modify the `test_lists.py` file as follows:\n```python\n" + MIXED + "```\nThen run it.\n"
    for segments in (edits(parse_reply(told, files)), _streamed(told, files)):
        assert [(s.path, s.content) for s in segments if isinstance(s, WholeFile)] == [("test_lists.py", MIXED)]
    both = (
        long + "here is the new content of `test_lists.py`, which imports chunk from lists.py:\n```\n" + MIXED + "```\n"
    )
    assert sentence_path(both.splitlines()[0]) is None  # two files named: no path from the sentence


CLIENT = (
    "import json\n\nRETRIES = 5\n\n\ndef main():\n    config = json.load(open('config.json'))\n    print(RETRIES)\n"
)


def test_real_a_long_instruction_before_a_whole_list_item_file_writes_it() -> None:
    # The 1.5B in the eval (config_code): a numbered step, a long sentence naming two files and "modify", then the
    # whole of client.py in a fence three spaces in. Read as a quote, nothing was written and the run ended.
    new = CLIENT.replace("print(RETRIES)", "print(config['retries'])")
    reply = (
        "2. **Update `client.py`**:\n"
        "   Open the `client.py` file and modify the `main` function to read the `retries` value from the "
        "`config.json` file instead of using the constant `RETRIES`. Here's the updated code:\n"
        "   ```python\n" + "".join(f"   {line}" if line.strip() else line for line in new.splitlines(True)) + "   ```\n"
    )
    files: dict[str, str | None] = {"client.py": CLIENT, "config.json": '{"retries": 3}\n'}
    for segments in (edits(parse_reply(reply, files)), _streamed(reply, files)):
        assert [(s.path, s.content) for s in segments if isinstance(s, WholeFile)] == [("client.py", new)]


def test_a_long_sentence_naming_a_file_not_in_play_makes_no_file_of_the_block_after_it() -> None:
    # An explanation that names a file, then the output it speaks of: the block is a quote, not conftest.py's
    # new content (a short "conftest.py:" line above a block is a path; a sentence is only for the files in play).
    files: dict[str, str | None] = {"lists.py": LISTS}
    reply = (
        "The error you are seeing most likely comes from the way pytest collects conftest.py files, which looks "
        "like this:\n\n```\nE   ImportError: cannot import name 'chunk'\n```\n"
    )
    for segments in (parse_reply(reply, files), _streamed(reply, files)):
        assert edits(segments) == []
    assert "ImportError" in "".join(s.text for s in parse_reply(reply, files) if isinstance(s, Prose))
    # A new file the prompt asked for is in play with no content yet ("", as files_in_play sends it): a sentence
    # naming it still names the block.
    asked: dict[str, str | None] = {"lists.py": LISTS, "flatten.py": ""}
    stated = (
        "Here is the complete implementation of the helper that flattens nested lists, to be saved as flatten.py:"
        "\n\n```python\ndef flatten(xs):\n    return [y for x in xs for y in x]\n```\n"
    )
    assert [(s.path, s.content) for s in edits(parse_reply(stated, asked)) if isinstance(s, WholeFile)] == [
        ("flatten.py", "def flatten(xs):\n    return [y for x in xs for y in x]\n")
    ]


def test_real_a_streamed_reply_reads_a_short_path_sentence_as_a_whole_one_does() -> None:
    # The 1.5B's numbered steps (eval move_function), streamed: the sentence went out as prose before its colon
    # came, the block lost its path and was taken for a quote, and main.py's import lines became timeparse.py.
    reply = (
        "1. Create the `timeparse.py` file:\n   ```bash\n   touch timeparse.py\n   ```\n\n"
        "2. Open the `timeparse.py` file in a text editor and add the following content:\n"
        "   ```python\n   def parse_duration(text):\n       return int(text[:-1])\n   ```\n"
    )
    files: dict[str, str | None] = {"utils.py": "def slug(s):\n    return s\n", "timeparse.py": ""}
    expected = [("$", "touch timeparse.py"), ("timeparse.py", "def parse_duration(text):\n    return int(text[:-1])\n")]
    assert _shapes(parse_reply(reply, files)) == expected
    reader = BlockReader(files)
    streamed: list[Segment] = []
    for start in range(0, len(reply), 4):
        streamed.extend(reader.feed(reply[start : start + 4]))
    assert _shapes([*streamed, *reader.finish()]) == expected
