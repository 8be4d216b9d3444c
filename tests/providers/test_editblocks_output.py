"""A program's output quoted under a sentence that names a file is text, never that file's new content."""

from __future__ import annotations

import pytest

from navtui.providers.editblocks import BlockReader, Prose, Segment, WholeFile, parse_reply

MAIN = "import sys\n\nprint(sys.argv[1])\n"
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/work/main.py", line 3, in <module>\n'
    "    print(sys.argv[1])\n"
    "IndexError: list index out of range\n"
)


def _streamed(reply: str, files: dict[str, str | None]) -> list[Segment]:
    reader = BlockReader(files)
    out: list[Segment] = []
    for start in range(0, len(reply), 3):  # as a server streams it: a few characters at a time
        out.extend(reader.feed(reply[start : start + 3]))
    return [*out, *reader.finish()]


@pytest.mark.parametrize(
    "reply",
    [
        "When I run main.py I get:\n\n```\n" + TRACEBACK + "```\n",
        "Running it fails. The output of main.py looks like this:\n\n```text\n"
        + TRACEBACK
        + "```\n\nPass an argument.",
        "Running `python3 main.py` gives:\n\n```\n$ python3 main.py\n" + TRACEBACK + "```\n",
        "The error from main.py:\n\n```\nIndexError: list index out of range\n```\n",
    ],
)
def test_a_traceback_quoted_after_a_sentence_naming_the_file_is_not_written_over_it(reply: str) -> None:
    # A 2-line main.py was written over with the traceback the model quoted to explain the failure: the sentence
    # before the block ("When I run main.py I get:") named main.py, and the block was longer than a quote of it.
    for files in ({"main.py": MAIN}, {"other.py": "x = 1\n"}):
        for segments in (parse_reply(reply, files), _streamed(reply, files)):
            assert not [s for s in segments if not isinstance(s, Prose)]
            assert "IndexError: list index out of range" in "".join(s.text for s in segments if isinstance(s, Prose))


def test_a_file_named_on_its_own_line_is_written_even_when_it_holds_a_traceback() -> None:
    # The path on a line of its own is the protocol's form: the model means that file (a log it was asked for).
    (block,) = parse_reply("error.log\n```\n" + TRACEBACK + "```\n", {"error.log": ""})
    assert isinstance(block, WholeFile) and block.path == "error.log" and block.content == TRACEBACK


# The 1.5B's reply in the eval's move_function: it wrote timeparse.py, then showed what main.py would print. The
# printed line, under "The output should be:", was taken as the one new file's content and replaced the module.
MOVE_REPLY = (
    "2. Open the `timeparse.py` file and add the following code:\n\n"
    "timeparse.py\n```python\ndef parse_duration(text):\n    return int(text[:-1])\n```\n\n"
    "5. Run the `python3 main.py` command to execute the updated code:\n```\n   python3 main.py\n```\n\n"
    "The output should be:\n\n```\nBig Job 180 done\n```\n\nThis confirms that the function moved.\n"
)


@pytest.mark.parametrize(
    "lead", ["The output should be:", "Expected output:", "It prints:", "You should see:", "Output:", "main.py will print:"]
)
def test_a_block_under_a_sentence_announcing_output_is_text(lead: str) -> None:
    reply = MOVE_REPLY.replace("The output should be:", lead)
    main = "from utils import parse_duration, shout, slug\n\nprint(slug(' Big Job '), parse_duration('3m'), shout('done'))\n"
    files: dict[str, str | None] = {"timeparse.py": "", "main.py": main}
    for segments in (parse_reply(reply, files), _streamed(reply, files)):
        written = [s for s in segments if isinstance(s, WholeFile)]
        assert [(w.path, w.content) for w in written] == [
            ("timeparse.py", "def parse_duration(text):\n    return int(text[:-1])\n")
        ]
        assert "Big Job 180 done" in "".join(s.text for s in segments if isinstance(s, Prose))


def test_a_file_named_on_its_own_line_after_an_output_sentence_is_still_written() -> None:
    # The protocol's own form wins: a path line of its own names the file whatever the sentence before it says.
    reply = "The output should be:\n\nexpected.txt\n```\nBig Job 180 done\n```\n"
    (block,) = [s for s in parse_reply(reply, {"expected.txt": ""}) if not isinstance(s, Prose)]
    assert isinstance(block, WholeFile) and block.path == "expected.txt"


CALC = "def add(a, b):\n    return a - b\n"


@pytest.mark.parametrize(
    "reply",
    [
        "Example usage of calc.py:\n\n```python\nfrom calc import add\n\nprint(add(2, 3))\n```\n",
        "You can use calc.py like this:\n\n```python\nimport calc\nprint(calc.add(2, 3))\n```\n",
        "To try `lib/calc.py`, run:\n\n```python\nfrom lib.calc import add\nassert add(1, 1) == 2\n```\n",
        "Use calc.js like this:\n\n```js\nconst { add } = require('./calc');\nconsole.log(add(2, 3));\n```\n",
        "To load calc.js in the page:\n\n```js\nimport './calc.js';\nwindow.add(2, 3);\n```\n",
    ],
)
def test_a_usage_example_of_a_module_is_not_written_over_it(reply: str) -> None:
    # "Example usage of calc.py:" then code that imports calc: written as calc.py, the module imported itself and
    # its code was gone (a 2-line file: the example was no quote of it by length).
    files: dict[str, str | None] = {"calc.py": CALC, "lib/calc.py": CALC, "calc.js": "exports.add = (a, b) => a - b;\n"}
    for segments in (parse_reply(reply, files), _streamed(reply, files)):
        assert not [s for s in segments if not isinstance(s, Prose)]


def test_a_new_version_under_a_sentence_naming_the_file_is_still_written() -> None:
    fixed = "from decimal import Decimal\n\n\ndef add(a, b):\n    return a + b\n"
    (block,) = [
        s
        for s in parse_reply("Here is the fixed calc.py:\n\n```python\n" + fixed + "```\n", {"calc.py": CALC})
        if not isinstance(s, Prose)
    ]
    assert isinstance(block, WholeFile) and block.path == "calc.py" and block.content == fixed


def test_a_script_that_imports_its_own_stylesheet_is_still_its_new_version() -> None:
    # App.js imports './App.css' (styles from it): another file of the same name, not itself.
    app = "import styles from './App.css';\n\nexport default function App() {\n  return <h1>Hi</h1>;\n}\n"
    reply = "Here is the updated App.js:\n\n```jsx\n" + app + "```\n"
    (block,) = [
        s for s in parse_reply(reply, {"App.js": "export default function App() {}\n"}) if not isinstance(s, Prose)
    ]
    assert isinstance(block, WholeFile) and block.path == "App.js" and block.content == app
