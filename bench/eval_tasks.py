"""The tasks of the local-model eval (``bench/eval_local.py``): a scratch repository, a prompt and a checker each.

A checker looks only at the files and at what commands exit with, never at the model's words: an answer the
model says but does not write down does not count. Every repository is made afresh for each run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

Files = dict[str, str]


@dataclass(frozen=True)
class Task:
    name: str
    kind: str  # what the task exercises, for the table
    prompt: str
    files: Files
    check: Callable[[Path, Files], str | None]  # None when finished, else what is wrong

    def make(self, root: Path) -> None:
        for rel, text in self.files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


def run(root: Path, *argv: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable if argv[0] == "python3" else argv[0], *argv[1:]],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def _read(root: Path, rel: str) -> str | None:
    try:
        return (root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _unchanged(root: Path, files: Files, *names: str) -> str | None:
    for name in names:
        if _read(root, name) != files[name]:
            return f"{name} was changed"
    return None


def _answer_is(root: Path, rel: str, expected: str) -> str | None:
    text = _read(root, rel)
    if text is None:
        return f"{rel} missing"
    if text.strip().strip("`'\"").strip() != expected:
        return f"{rel} holds {text.strip()[:40]!r}, expected {expected!r}"
    return None


# ---------------------------------------------------------------------- the tasks
def _check_hello(root: Path, files: Files) -> str | None:
    extra = sorted(p.name for p in root.iterdir() if p.name not in files and not p.name.startswith("."))
    return f"wrote files: {extra}" if extra else None


README = "Project codeword: amber-falcon-42\n\nThis project is a demo.\nIt has two more lines.\n"


def _check_read_answer(root: Path, files: Files) -> str | None:
    return _unchanged(root, files, "README.md") or _answer_is(root, "answer.txt", "Project codeword: amber-falcon-42")


def _check_create_run(root: Path, files: Files) -> str | None:
    if not (root / "hello.py").is_file():
        return "hello.py missing"
    out = run(root, "python3", "hello.py")
    if out.returncode != 0:
        return f"hello.py exits {out.returncode}"
    return None if "hello world" in out.stdout.lower() else f"hello.py prints {out.stdout.strip()[:40]!r}"


CALC = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
TEST_CALC = (
    "from calc import add, mul\n\n"
    "assert add(2, 3) == 5, 'add is wrong'\n"
    "assert mul(2, 3) == 6, 'mul is wrong'\n"
    "print('all tests pass')\n"
)


def _check_fix_test(root: Path, files: Files) -> str | None:
    if problem := _unchanged(root, files, "test_calc.py"):
        return problem
    out = run(root, "python3", "test_calc.py")
    return None if out.returncode == 0 else f"test_calc.py exits {out.returncode}"


RENAME_FILES = {
    "shop/prices.py": "def compute_total(prices):\n    return sum(prices)\n",
    "shop/cart.py": "from shop.prices import compute_total\n\n\ndef cart_total(items):\n"
    "    return compute_total([price for _, price in items])\n",
    "shop/__init__.py": "",
    "main.py": "from shop.cart import cart_total\nfrom shop.prices import compute_total\n\n"
    "print(cart_total([('tea', 3), ('cake', 4)]), compute_total([1, 2]))\n",
}


def _check_rename(root: Path, files: Files) -> str | None:
    for rel in files:
        text = _read(root, rel)
        if text is None:
            return f"{rel} missing"
        if "compute_total" in text:
            return f"{rel} still says compute_total"
    if "def sum_prices" not in (_read(root, "shop/prices.py") or ""):
        return "shop/prices.py does not define sum_prices"
    out = run(root, "python3", "main.py")
    return None if out.returncode == 0 and out.stdout.split() == ["7", "3"] else "main.py does not print 7 3"


def _grep_files() -> Files:
    files = {f"pkg/mod_{i}.py": f"def helper_{i}(x):\n    return x + {i}\n" for i in range(12)}
    files["pkg/net/wire.py"] = "import struct\n\n\ndef parse_header(data):\n    return struct.unpack('>HH', data[:4])\n"
    files["pkg/net/__init__.py"] = ""
    return files


def _check_grep(root: Path, files: Files) -> str | None:
    return _answer_is(root, "answer.txt", "pkg/net/wire.py")


def _big_file() -> str:
    lines = ['"""Settings for the demo service."""', "", "TIMEOUT = 30", ""]
    for i in range(296):
        lines.append(f"OPTION_{i:03d} = {i * 7 % 101}  # option {i}")
    return "\n".join(lines) + "\n"


def _check_edit_big(root: Path, files: Files) -> str | None:
    text = _read(root, "config.py")
    if text is None:
        return "config.py missing"
    expected = files["config.py"].replace("TIMEOUT = 30", "TIMEOUT = 45")
    if text == expected:
        return None
    return "TIMEOUT not set to 45" if "TIMEOUT = 45" not in text else "other lines of config.py changed"


BUILD = (
    "import json\n\n"
    "with open('config.json') as f:\n    config = json.load(f)\n"
    "with open('out.txt', 'w') as f:\n    f.write(config['name'] + '\\n')\n"
    "print('built', config['name'])\n"
)


def _check_recover(root: Path, files: Files) -> str | None:
    if problem := _unchanged(root, files, "build.py"):
        return problem
    out = run(root, "python3", "build.py")
    if out.returncode != 0:
        return f"build.py exits {out.returncode}"
    return None if _read(root, "out.txt") == "demo\n" else "out.txt does not say demo"


REQUIREMENTS = "requests>=2.31\nrich>=13\n"


def _check_append(root: Path, files: Files) -> str | None:
    text = _read(root, "requirements.txt")
    if text is None:
        return "requirements.txt missing"
    if text.rstrip("\n").split("\n") != ["requests>=2.31", "rich>=13", "numpy>=1.26"]:
        return f"requirements.txt is {text[:60]!r}"
    return None if text.endswith("\n") else "the final newline was lost"


def _check_new_module(root: Path, files: Files) -> str | None:
    if not (root / "src/util/strings.py").is_file():
        return "src/util/strings.py missing"
    code = "import sys; sys.path.insert(0, 'src/util'); from strings import reverse; assert reverse('abc') == 'cba'"
    out = run(root, "python3", "-c", code)
    return None if out.returncode == 0 else "reverse('abc') is not 'cba'"


CSV = "name,qty\n" + "".join(f"item{i},{i}\n" for i in range(17))


def _check_count(root: Path, files: Files) -> str | None:
    return _unchanged(root, files, "data.csv") or _answer_is(root, "count.txt", "17")


APP = "def main():\n    print('OK'\n\n\nmain()\n"


def _check_syntax(root: Path, files: Files) -> str | None:
    out = run(root, "python3", "app.py")
    return None if out.returncode == 0 and out.stdout.strip() == "OK" else "app.py does not print OK"


SETTINGS = json.dumps({"name": "demo", "debug": False, "port": 8080, "tags": ["a", "b"]}, indent=2) + "\n"


def _check_json(root: Path, files: Files) -> str | None:
    text = _read(root, "settings.json")
    try:
        data = json.loads(text or "")
    except ValueError:
        return "settings.json is not valid JSON"
    expected = {**json.loads(files["settings.json"]), "debug": True}
    return None if data == expected else f"settings.json is {data}"


def _check_delete(root: Path, files: Files) -> str | None:
    if (root / "debug.log").exists():
        return "debug.log still exists"
    return _unchanged(root, files, "notes.txt")


TASKS: list[Task] = [
    Task("hello", "answer", "Say hello.", {"notes.txt": "nothing here\n"}, _check_hello),
    Task(
        "read_answer",
        "read",
        "Read README.md and write its first line, exactly, into a new file answer.txt.",
        {"README.md": README},
        _check_read_answer,
    ),
    Task(
        "create_run",
        "write+run",
        "Create hello.py that prints hello world, then run it with python3.",
        {},
        _check_create_run,
    ),
    Task(
        "fix_test",
        "fix",
        "python3 test_calc.py fails. Fix the bug in calc.py (do not change the test) and run the test again.",
        {"calc.py": CALC, "test_calc.py": TEST_CALC},
        _check_fix_test,
    ),
    Task(
        "rename",
        "multi-file edit",
        "Rename the function compute_total to sum_prices everywhere in this project, then run python3 main.py.",
        RENAME_FILES,
        _check_rename,
    ),
    Task(
        "grep_define",
        "search",
        "Find the file that defines the function parse_header and write its path (relative, like a/b.py) "
        "into a new file answer.txt.",
        _grep_files(),
        _check_grep,
    ),
    Task(
        "edit_big",
        "edit in 300 lines",
        "In config.py, change TIMEOUT from 30 to 45. Change nothing else.",
        {"config.py": _big_file()},
        _check_edit_big,
    ),
    Task(
        "recover",
        "failing command",
        "Run python3 build.py. It fails: find out why and fix config.json (not build.py) until it succeeds.",
        {"build.py": BUILD, "config.json": '{"name": "demo",}\n'},
        _check_recover,
    ),
    Task(
        "append_line",
        "small edit",
        "Add the line numpy>=1.26 at the end of requirements.txt.",
        {"requirements.txt": REQUIREMENTS},
        _check_append,
    ),
    Task(
        "new_module",
        "create in subdir",
        "Create src/util/strings.py with a function reverse(s) that returns s reversed.",
        {},
        _check_new_module,
    ),
    Task(
        "count_rows",
        "shell",
        "Count the data rows of data.csv (not the header line) and write the number into a new file count.txt.",
        {"data.csv": CSV},
        _check_count,
    ),
    Task(
        "fix_syntax",
        "fix",
        "python3 app.py fails with a syntax error. Fix app.py so that it prints OK.",
        {"app.py": APP},
        _check_syntax,
    ),
    Task(
        "json_setting",
        "structured edit",
        'In settings.json, set "debug" to true. Keep everything else as it is.',
        {"settings.json": SETTINGS},
        _check_json,
    ),
    Task(
        "delete_log",
        "shell",
        "Delete the file debug.log.",
        {"debug.log": "old log line\n" * 20, "notes.txt": "keep me\n"},
        _check_delete,
    ),
]
