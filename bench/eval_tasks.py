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
    # The files a user would add to the chat for this request (aider's command line, navtui's @path): the ones
    # the request is about, as a user who knows the repository would pick them. Empty when the user would not
    # know (find which file ...) or there is none yet (create ...).
    user_files: tuple[str, ...] = ()
    edits: bool = True  # False: the task needs no file written (a small model should at least finish these)

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
IGNORED = {"__pycache__"}  # and dot files: the agents' own state, Python's caches


def _check_hello(root: Path, files: Files) -> str | None:
    extra = sorted(p.name for p in root.iterdir() if p.name not in files and p.name not in IGNORED and p.name[0] != ".")
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


def _unchanged_all(root: Path, files: Files) -> str | None:
    """Every file as it was and no new one (dot files aside: the agents' own state)."""
    return _unchanged(root, files, *files) or _check_hello(root, files)


MATHUTIL = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
TEST_MATHUTIL = "from mathutil import add, sub\n\nassert add(2, 3) == 5\nassert sub(5, 3) == 2\nprint('ok')\n"


def _check_add_function(root: Path, files: Files) -> str | None:
    code = (
        "from mathutil import add, sub, clamp\n"
        "assert clamp(5, 0, 3) == 3 and clamp(-1, 0, 3) == 0 and clamp(2, 0, 3) == 2\n"
        "assert add(2, 3) == 5 and sub(5, 3) == 2\n"
    )
    if run(root, "python3", "-c", code).returncode != 0:
        return "mathutil.clamp is missing or wrong (or add/sub broke)"
    test = _read(root, "test_mathutil.py") or ""
    if "clamp" not in test:
        return "test_mathutil.py does not test clamp"
    if "assert add(2, 3) == 5" not in test or "assert sub(5, 3) == 2" not in test:
        return "test_mathutil.py lost its old asserts"
    out = run(root, "python3", "test_mathutil.py")
    return None if out.returncode == 0 else f"test_mathutil.py exits {out.returncode}"


STATS = "def average(values):\n    return sum(values) / len(values)\n"
REPORT = "from stats import average\n\nprint('mean:', average([]))\nprint('mean:', average([2, 4]))\n"
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "report.py", line 3, in <module>\n'
    "    print('mean:', average([]))\n"
    '  File "stats.py", line 2, in average\n'
    "    return sum(values) / len(values)\n"
    "ZeroDivisionError: division by zero\n"
)


def _check_traceback(root: Path, files: Files) -> str | None:
    if problem := _unchanged(root, files, "report.py"):
        return problem
    out = run(root, "python3", "report.py")
    if out.returncode != 0:
        return f"report.py exits {out.returncode}"
    if out.stdout.split() not in (["mean:", "0", "mean:", "3.0"], ["mean:", "0.0", "mean:", "3.0"]):
        return f"report.py prints {out.stdout.strip()[:40]!r}"
    return None


RENAME_CLASS_FILES = {
    "models.py": "class UserRecord:\n    def __init__(self, name):\n        self.name = name\n",
    "store.py": "from models import UserRecord\n\n\ndef load(names):\n    return [UserRecord(n) for n in names]\n",
    "app.py": "from models import UserRecord\nfrom store import load\n\n"
    "users = load(['ann', 'bob'])\nprint(len(users), isinstance(users[0], UserRecord), users[1].name)\n",
}


def _check_rename_class(root: Path, files: Files) -> str | None:
    for rel in files:
        text = _read(root, rel)
        if text is None:
            return f"{rel} missing"
        if "UserRecord" in text:
            return f"{rel} still says UserRecord"
    if "class Account" not in (_read(root, "models.py") or ""):
        return "models.py does not define Account"
    out = run(root, "python3", "app.py")
    return None if out.stdout.split() == ["2", "True", "bob"] else "app.py does not print 2 True bob"


APP_INI = "[server]\nhost = 127.0.0.1\nport = 8000\nworkers = 2\n\n[log]\nlevel = info\n"


def _check_ini(root: Path, files: Files) -> str | None:
    text = _read(root, "app.ini")
    if text is None:
        return "app.ini missing"
    if text == files["app.ini"].replace("port = 8000", "port = 9000"):
        return None
    return "port not set to 9000" if "9000" not in text else "other lines of app.ini changed"


TEXT_PY = (
    "import re\n\n\n"
    "def slugify(title):\n"
    "    words = re.findall(r'[a-z0-9]+', title.lower())\n"
    "    return '-'.join(words)\n"
)


def _check_add_test(root: Path, files: Files) -> str | None:
    if problem := _unchanged(root, files, "text.py"):
        return problem
    test = _read(root, "test_text.py")
    if test is None:
        return "test_text.py missing"
    if "slugify" not in test or "assert" not in test:
        return "test_text.py has no assert on slugify"
    out = run(root, "python3", "test_text.py")
    if out.returncode != 0:
        return f"test_text.py exits {out.returncode}"
    (root / "text.py").write_text("def slugify(title):\n    return title\n", encoding="utf-8")  # a broken one
    try:
        broken = run(root, "python3", "test_text.py")
    finally:
        (root / "text.py").write_text(files["text.py"], encoding="utf-8")
    return None if broken.returncode != 0 else "test_text.py passes a slugify that does nothing"


NUMBERS = "".join(f"{i}\n" for i in range(1, 11))


def _check_script_run(root: Path, files: Files) -> str | None:
    if problem := _unchanged(root, files, "numbers.txt"):
        return problem
    if not (root / "total.py").is_file():
        return "total.py missing"
    out = run(root, "python3", "total.py")
    if out.returncode != 0 or out.stdout.strip() not in ("55", "55.0"):
        return f"total.py prints {out.stdout.strip()[:40]!r}, expected 55"
    (root / "numbers.txt").write_text("4\n5\n", encoding="utf-8")  # not a printed constant
    out = run(root, "python3", "total.py")
    return None if out.stdout.strip() in ("9", "9.0") else "total.py does not sum numbers.txt (prints 55 for 4, 5)"


def _check_gitignore(root: Path, files: Files) -> str | None:
    text = _read(root, ".gitignore")
    if text is None:
        return ".gitignore missing"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if sorted(lines) != sorted(["*.pyc", "__pycache__/", "*.log"]):
        return f".gitignore is {text[:60]!r}"
    return None if lines[0] == "*.pyc" else "the old line moved"


UTILS = (
    "def slug(s):\n    return s.strip().lower().replace(' ', '-')\n\n\n"
    "def old_helper(x):\n    return x * 42\n\n\n"
    "def shout(s):\n    return s.upper() + '!'\n"
)
UTILS_MAIN = "from utils import shout, slug\n\nprint(slug(' Hello World '), shout('hi'))\n"


def _check_remove_function(root: Path, files: Files) -> str | None:
    text = _read(root, "utils.py")
    if text is None:
        return "utils.py missing"
    if "old_helper" in text:
        return "utils.py still defines old_helper"
    for keep in ("def slug(s):\n    return s.strip().lower().replace(' ', '-')\n", "def shout(s):\n"):
        if keep not in text:
            return "utils.py lost more than old_helper"
    if problem := _unchanged(root, files, "main.py"):
        return problem
    out = run(root, "python3", "main.py")
    return None if out.stdout.split() == ["hello-world", "HI!"] else "main.py does not print hello-world HI!"


HELPERS = "def format_money(cents):\n    return f'${cents / 100:.2f}'\n"
IMPORT_MAIN = "from helpers import format_price\n\nprint(format_price(350))\n"


def _check_fix_import(root: Path, files: Files) -> str | None:
    if problem := _unchanged(root, files, "helpers.py"):
        return problem
    out = run(root, "python3", "main.py")
    return None if out.returncode == 0 and out.stdout.strip() == "$3.50" else "main.py does not print $3.50"


DATES = (
    "from datetime import date\n\n\n"
    "def parse_date(text):\n"
    "    year, month, day = (int(part) for part in text.split('-'))\n"
    "    return date(year, month, day)\n"
)


def _check_docstring(root: Path, files: Files) -> str | None:
    import ast

    text = _read(root, "dates.py")
    try:
        tree = ast.parse(text or "")
    except SyntaxError:
        return "dates.py does not parse"
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "parse_date"]
    if not functions or ast.get_docstring(functions[0]) is None:
        return "parse_date has no docstring"
    body = functions[0].body[1:]
    original = ast.parse(files["dates.py"]).body[-1]
    assert isinstance(original, ast.FunctionDef)
    if [ast.dump(n) for n in body] != [ast.dump(n) for n in original.body]:
        return "parse_date's code changed"
    out = run(root, "python3", "-c", "from dates import parse_date; print(parse_date('2024-02-29'))")
    return None if out.stdout.strip() == "2024-02-29" else "parse_date no longer works"


TASKS: list[Task] = [
    Task("hello", "answer", "Say hello.", {"notes.txt": "nothing here\n"}, _check_hello, edits=False),
    Task(
        "read_answer",
        "read",
        "Read README.md and write its first line, exactly, into a new file answer.txt.",
        {"README.md": README},
        _check_read_answer,
        ("README.md",),
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
        ("calc.py", "test_calc.py"),
    ),
    Task(
        "rename",
        "multi-file edit",
        "Rename the function compute_total to sum_prices everywhere in this project, then run python3 main.py.",
        RENAME_FILES,
        _check_rename,
        ("shop/prices.py", "shop/cart.py", "main.py"),
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
        ("config.py",),
    ),
    Task(
        "recover",
        "failing command",
        "Run python3 build.py. It fails: find out why and fix config.json (not build.py) until it succeeds.",
        {"build.py": BUILD, "config.json": '{"name": "demo",}\n'},
        _check_recover,
        ("build.py", "config.json"),
    ),
    Task(
        "append_line",
        "small edit",
        "Add the line numpy>=1.26 at the end of requirements.txt.",
        {"requirements.txt": REQUIREMENTS},
        _check_append,
        ("requirements.txt",),
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
        ("data.csv",),
    ),
    Task(
        "fix_syntax",
        "fix",
        "python3 app.py fails with a syntax error. Fix app.py so that it prints OK.",
        {"app.py": APP},
        _check_syntax,
        ("app.py",),
    ),
    Task(
        "json_setting",
        "structured edit",
        'In settings.json, set "debug" to true. Keep everything else as it is.',
        {"settings.json": SETTINGS},
        _check_json,
        ("settings.json",),
    ),
    Task(
        "delete_log",
        "shell",
        "Delete the file debug.log.",
        {"debug.log": "old log line\n" * 20, "notes.txt": "keep me\n"},
        _check_delete,
    ),
    Task(
        "add_function",
        "add function+test",
        "Add a function clamp(x, low, high) to mathutil.py that limits x to the range low..high, and add a test "
        "for it to test_mathutil.py. Then run python3 test_mathutil.py.",
        {"mathutil.py": MATHUTIL, "test_mathutil.py": TEST_MATHUTIL},
        _check_add_function,
        ("mathutil.py", "test_mathutil.py"),
    ),
    Task(
        "traceback",
        "crash from traceback",
        "python3 report.py crashes:\n\n" + TRACEBACK + "\nFix average in stats.py so that an empty list gives 0. "
        "Do not change report.py.",
        {"stats.py": STATS, "report.py": REPORT},
        _check_traceback,
        ("stats.py",),
    ),
    Task(
        "rename_class",
        "rename across files",
        "Rename the class UserRecord to Account in models.py, store.py and app.py, then run python3 app.py.",
        RENAME_CLASS_FILES,
        _check_rename_class,
        ("models.py", "store.py", "app.py"),
    ),
    Task(
        "ini_setting",
        "one setting",
        "In app.ini, change the server port to 9000.",
        {"app.ini": APP_INI},
        _check_ini,
        ("app.ini",),
    ),
    Task(
        "explain",
        "explain code",
        "Explain what the function slugify in text.py does. Do not change any files.",
        {"text.py": TEXT_PY},
        _unchanged_all,
        ("text.py",),
        edits=False,
    ),
    Task(
        "script_run",
        "script+run",
        "Write a Python script total.py that prints the sum of the numbers in numbers.txt (one number per line), "
        "then run it.",
        {"numbers.txt": NUMBERS},
        _check_script_run,
        ("numbers.txt",),
    ),
    Task(
        "add_test",
        "write a test",
        "Write a test file test_text.py with a few asserts for slugify from text.py, then run it with python3.",
        {"text.py": TEXT_PY},
        _check_add_test,
        ("text.py",),
    ),
    Task(
        "gitignore",
        "small edit",
        "Add __pycache__/ and *.log to .gitignore, keeping what is there.",
        {".gitignore": "*.pyc\n"},
        _check_gitignore,
        (".gitignore",),
    ),
    Task(
        "remove_function",
        "delete code",
        "Remove the unused function old_helper from utils.py.",
        {"utils.py": UTILS, "main.py": UTILS_MAIN},
        _check_remove_function,
        ("utils.py",),
    ),
    Task(
        "fix_import",
        "crash from traceback",
        "python3 main.py fails with: ImportError: cannot import name 'format_price' from 'helpers'. "
        "The function in helpers.py is called format_money: fix main.py to use it.",
        {"helpers.py": HELPERS, "main.py": IMPORT_MAIN},
        _check_fix_import,
        ("main.py", "helpers.py"),
    ),
    Task(
        "docstring",
        "document code",
        "Add a docstring to the function parse_date in dates.py.",
        {"dates.py": DATES},
        _check_docstring,
        ("dates.py",),
    ),
]


# ---------------------------------------------------------------------- the harder set (--set hard)
# Real requests in small repositories that take more than one edit or more than the file the user names: a
# change across two files, a bug in a module the prompt does not name, a move with its imports, code from a
# docstring, a setting and the code that reads it, a test that finds a bug, a repository whose long file does
# not fit a 4,096-token window whole. Each is within a 1.5B's reach in principle: one small idea per task,
# every name it needs is in the prompt or in a file it can read.

GREETING = "def format_greeting(name):\n    return 'Hello, ' + name\n"
GREETING_MAIN = "from greeting import format_greeting\n\nprint(format_greeting('Ann'))\n"


def _check_param_through(root: Path, files: Files) -> str | None:
    code = (
        "from greeting import format_greeting as f\n"
        "assert f('Bob') == 'Hello, Bob', f('Bob')\n"
        "assert f('Bob', excited=True) == 'Hello, Bob!', f('Bob', excited=True)\n"
        "assert f('Bob', excited=False) == 'Hello, Bob'\n"
    )
    out = run(root, "python3", "-c", code)
    if out.returncode != 0:
        return (
            "format_greeting(name, excited=...) is missing or wrong: "
            + (out.stderr.strip().splitlines() or [""])[-1][:80]
        )
    out = run(root, "python3", "main.py")
    return None if out.stdout.strip() == "Hello, Ann!" else f"main.py prints {out.stdout.strip()[:40]!r}"


DISCOUNT = (
    "def percent_off(price, percent):\n"
    '    """The price after taking percent % off."""\n'
    "    return price - price * percent / 10\n"
)
PRICING = (
    "from shop.discount import percent_off\n\n\n"
    "def sale_price(price, member):\n"
    "    if member:\n"
    "        return percent_off(price, 20)\n"
    "    return percent_off(price, 5)\n"
)
TEST_PRICING = (
    "from shop.pricing import sale_price\n\n"
    "assert sale_price(100, member=True) == 80, sale_price(100, member=True)\n"
    "assert sale_price(100, member=False) == 95, sale_price(100, member=False)\n"
    "print('pricing ok')\n"
)


def _check_hidden_bug(root: Path, files: Files) -> str | None:
    if problem := _unchanged(root, files, "test_pricing.py"):
        return problem
    out = run(root, "python3", "test_pricing.py")
    if out.returncode != 0:
        return f"test_pricing.py exits {out.returncode}"
    out = run(root, "python3", "-c", "from shop.discount import percent_off; assert percent_off(50, 10) == 45")
    return None if out.returncode == 0 else "percent_off(50, 10) is not 45 (the test was satisfied another way)"


UTILS_TIME = (
    "def slug(text):\n    return text.strip().lower().replace(' ', '-')\n\n\n"
    "def parse_duration(text):\n"
    '    """Seconds in a duration like 5s, 3m or 2h."""\n'
    "    units = {'s': 1, 'm': 60, 'h': 3600}\n"
    "    return int(text[:-1]) * units[text[-1]]\n\n\n"
    "def shout(text):\n    return text.upper() + '!'\n"
)
MOVE_MAIN = (
    "from utils import parse_duration, shout, slug\n\nprint(slug(' Big Job '), parse_duration('3m'), shout('done'))\n"
)


def _defines(root: Path, rel: str, name: str) -> bool:
    import ast

    try:
        tree = ast.parse(_read(root, rel) or "")
    except SyntaxError:
        return False
    return any(isinstance(n, ast.FunctionDef) and n.name == name for n in tree.body)


def _check_move_function(root: Path, files: Files) -> str | None:
    if not _defines(root, "timeparse.py", "parse_duration"):
        return "timeparse.py does not define parse_duration"
    if _defines(root, "utils.py", "parse_duration"):
        return "utils.py still defines parse_duration"
    if not (_defines(root, "utils.py", "slug") and _defines(root, "utils.py", "shout")):
        return "utils.py lost slug or shout"
    out = run(
        root, "python3", "-c", "from timeparse import parse_duration as p; assert p('2h') == 7200 and p('5s') == 5"
    )
    if out.returncode != 0:
        return "timeparse.parse_duration does not work"
    out = run(root, "python3", "main.py")
    return None if out.stdout.split() == ["big-job", "180", "DONE!"] else "main.py does not print big-job 180 DONE!"


TEXTSTATS = (
    "def word_counts(text):\n"
    '    """Count the words of text: a dict from each word, lower-cased, to how many times it occurs.\n\n'
    "    Words are separated by whitespace. word_counts('The cat saw the dog') == {'the': 2, 'cat': 1, 'saw': 1, "
    "'dog': 1}\n"
    '    """\n'
    "    raise NotImplementedError\n"
)


def _check_from_docstring(root: Path, files: Files) -> str | None:
    code = (
        "from textstats import word_counts as w\n"
        "assert w('The cat saw the dog') == {'the': 2, 'cat': 1, 'saw': 1, 'dog': 1}\n"
        "assert w('') == {}\n"
        "assert w('a A\\nb  a') == {'a': 3, 'b': 1}\n"
    )
    out = run(root, "python3", "-c", code)
    return (
        None if out.returncode == 0 else "word_counts is wrong: " + (out.stderr.strip().splitlines() or [""])[-1][:80]
    )


CLIENT_CONFIG = json.dumps({"url": "http://localhost:8000", "timeout": 10}, indent=2) + "\n"
CLIENT = (
    "import json\n\n"
    "RETRIES = 5\n\n\n"
    "def load_config(path='config.json'):\n"
    "    with open(path) as f:\n"
    "        return json.load(f)\n\n\n"
    "def main():\n"
    "    config = load_config()\n"
    "    print('url', config['url'])\n"
    "    print('timeout', config['timeout'])\n"
    "    print('retries', RETRIES)\n\n\n"
    "main()\n"
)


def _check_config_code(root: Path, files: Files) -> str | None:
    try:
        config = json.loads(_read(root, "config.json") or "")
    except ValueError:
        return "config.json is not valid JSON"
    if config != {"url": "http://localhost:8000", "timeout": 10, "retries": 3}:
        return f"config.json is {config}"
    out = run(root, "python3", "client.py")
    if out.stdout.split() != ["url", "http://localhost:8000", "timeout", "10", "retries", "3"]:
        return f"client.py prints {out.stdout.strip()[-60:]!r}"
    (root / "config.json").write_text(json.dumps({**config, "retries": 7}), encoding="utf-8")  # read, not a constant
    try:
        out = run(root, "python3", "client.py")
    finally:
        (root / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return None if "retries 7" in out.stdout else "client.py does not read retries from config.json"


LISTS = (
    "def chunk(items, size):\n"
    '    """Split items into lists of size items; the last one may be shorter."""\n'
    "    return [items[i:i + size] for i in range(0, len(items) - size + 1, size)]\n"
)
TEST_LISTS = "from lists import chunk\n\nassert chunk([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]\nprint('ok')\n"


def _check_test_and_fix(root: Path, files: Files) -> str | None:
    code = (
        "from lists import chunk as c\nassert c([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]\nassert c([], 3) == []\n"
    )
    code += "assert c([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]\n"
    if run(root, "python3", "-c", code).returncode != 0:
        return "chunk still drops the last, shorter chunk"
    test = _read(root, "test_lists.py") or ""
    if "assert chunk([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]" not in test:
        return "test_lists.py lost its old assert"
    if run(root, "python3", "test_lists.py").returncode != 0:
        return "test_lists.py fails"
    fixed = _read(root, "lists.py") or ""
    (root / "lists.py").write_text(files["lists.py"], encoding="utf-8")  # the test must catch the bug
    try:
        broken = run(root, "python3", "test_lists.py")
    finally:
        (root / "lists.py").write_text(fixed, encoding="utf-8")
    return None if broken.returncode != 0 else "test_lists.py passes the old chunk: no test of a shorter last chunk"


def _billing() -> str:
    """A long module (10 KB, 3,300 tokens: with a prompt and an answer, more than a 4,096-token window)
    with one wrong rate in the middle."""
    parts = ['"""Billing rules for the demo shop."""', "", "from decimal import Decimal", ""]
    for i in range(60):
        parts += [
            "",
            f"def fee_{i:02d}(amount):",
            f'    """Fee rule {i}: {i % 7 + 1} % of the amount, at least {i % 5 + 1} cents."""',
            f"    value = Decimal(amount) * Decimal('{(i % 7 + 1) / 100:.2f}')",
            f"    return max(value, Decimal('0.0{i % 5 + 1}'))",
            "",
        ]
        if i == 31:
            parts += [
                "",
                "def late_fee(amount, days):",
                '    """The fee for paying days late: 2 % of the amount per started week."""',
                "    weeks = (days + 6) // 7",
                "    return Decimal(amount) * Decimal('0.05') * weeks",
                "",
            ]
    return "\n".join(parts) + "\n"


CHECK_BILLING = (
    "from decimal import Decimal\n\nfrom services.billing import late_fee\n\n"
    "assert late_fee(100, 1) == Decimal('2.00'), late_fee(100, 1)\n"
    "assert late_fee(100, 8) == Decimal('4.00'), late_fee(100, 8)\n"
    "assert late_fee(100, 0) == 0\n"
    "print('billing ok')\n"
)


def _big_repo_files() -> Files:
    files = {
        f"services/svc_{i:02d}.py": f"def handle_{i}(request):\n    return {{'service': {i}, 'ok': True}}\n"
        for i in range(18)
    }
    files["services/__init__.py"] = ""
    files["services/billing.py"] = _billing()
    files["check_billing.py"] = CHECK_BILLING
    files["README.md"] = "# demo shop\n\nRun `python3 check_billing.py` to check the billing rules.\n"
    return files


def _check_big_repo(root: Path, files: Files) -> str | None:
    import ast

    if problem := _unchanged(root, files, "check_billing.py"):
        return problem
    out = run(root, "python3", "check_billing.py")
    if out.returncode != 0:
        return f"check_billing.py exits {out.returncode}"
    try:
        tree = ast.parse(_read(root, "services/billing.py") or "")
    except SyntaxError:
        return "services/billing.py does not parse"
    others = [ast.dump(n) for n in tree.body if getattr(n, "name", "") != "late_fee"]
    original = [
        ast.dump(n) for n in ast.parse(files["services/billing.py"]).body if getattr(n, "name", "") != "late_fee"
    ]
    return None if others == original else "services/billing.py changed more than late_fee"


CLI = (
    "import argparse\n\n\n"
    "def main():\n"
    "    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('a', type=int)\n"
    "    parser.add_argument('b', type=int)\n"
    "    args = parser.parse_args()\n"
    "    print(args.a + args.b)\n\n\n"
    "main()\n"
)


def _check_cli_flag(root: Path, files: Files) -> str | None:
    plain = run(root, "python3", "cli.py", "2", "3")
    if plain.returncode != 0 or plain.stdout.split() != ["5"]:
        return f"cli.py 2 3 prints {plain.stdout.strip()[:40]!r}"
    for argv in (("--verbose", "2", "3"), ("2", "3", "--verbose")):
        out = run(root, "python3", "cli.py", *argv)
        if out.returncode != 0 or out.stdout.splitlines() != ["verbose on", "5"]:
            return f"cli.py {' '.join(argv)} prints {out.stdout.strip()[:40]!r}, not 'verbose on' then 5"
    return None


RENAME_UNNAMED_FILES = {
    "app/__init__.py": "",
    "app/users.py": "USERS = {1: 'ann', 2: 'bob'}\n\n\ndef get_user(user_id):\n    return USERS.get(user_id)\n",
    "app/views.py": "from app.users import get_user\n\n\ndef profile(user_id):\n    return 'profile of ' + str(get_user(user_id))\n",
    "app/admin.py": "from app import users\n\n\ndef is_known(user_id):\n    return users.get_user(user_id) is not None\n",
    "app/mail.py": "def send(to, text):\n    return f'to {to}: {text}'\n",
    "main.py": "from app.admin import is_known\nfrom app.views import profile\n\nprint(profile(2), is_known(1), is_known(3))\n",
}


def _check_rename_unnamed(root: Path, files: Files) -> str | None:
    for rel in files:
        text = _read(root, rel)
        if text is None:
            return f"{rel} missing"
        if "get_user" in text:
            return f"{rel} still says get_user"
    if not _defines(root, "app/users.py", "fetch_user"):
        return "app/users.py does not define fetch_user"
    out = run(root, "python3", "main.py")
    return (
        None
        if out.stdout.split() == ["profile", "of", "bob", "True", "False"]
        else "main.py does not print profile of bob True False"
    )


HARD_TASKS: list[Task] = [
    Task(
        "param_through",
        "parameter across files",
        "Add a parameter excited (default False) to format_greeting in greeting.py: when it is true the greeting "
        "ends with '!'. Then make main.py pass excited=True, and run python3 main.py.",
        {"greeting.py": GREETING, "main.py": GREETING_MAIN},
        _check_param_through,
        ("greeting.py", "main.py"),
    ),
    Task(
        "hidden_bug",
        "bug in an unnamed module",
        "python3 test_pricing.py fails. Find the bug in the shop package and fix it (do not change the test), "
        "then run the test again.",
        {
            "shop/__init__.py": "",
            "shop/discount.py": DISCOUNT,
            "shop/pricing.py": PRICING,
            "test_pricing.py": TEST_PRICING,
        },
        _check_hidden_bug,
        ("test_pricing.py",),
    ),
    Task(
        "move_function",
        "move code, fix imports",
        "Move the function parse_duration from utils.py into a new module timeparse.py, update the imports in "
        "main.py, then run python3 main.py.",
        {"utils.py": UTILS_TIME, "main.py": MOVE_MAIN},
        _check_move_function,
        ("utils.py", "main.py"),
    ),
    Task(
        "from_docstring",
        "code from a docstring",
        "Implement the function word_counts in textstats.py as its docstring says.",
        {"textstats.py": TEXTSTATS},
        _check_from_docstring,
        ("textstats.py",),
    ),
    Task(
        "config_code",
        "setting and its code",
        'Add a setting "retries" with the value 3 to config.json, and make client.py read it from the config '
        "instead of the constant RETRIES. Then run python3 client.py.",
        {"config.json": CLIENT_CONFIG, "client.py": CLIENT},
        _check_config_code,
        ("config.json", "client.py"),
    ),
    Task(
        "test_and_fix",
        "a test finds a bug",
        "Add a test to test_lists.py that chunk([1, 2, 3, 4, 5], 2) gives [[1, 2], [3, 4], [5]]. Run python3 "
        "test_lists.py; if it fails, fix chunk in lists.py.",
        {"lists.py": LISTS, "test_lists.py": TEST_LISTS},
        _check_test_and_fix,
        ("lists.py", "test_lists.py"),
    ),
    Task(
        "big_repo",
        "long file, 20+ files",
        "python3 check_billing.py fails: late_fee in services/billing.py charges 5 % per week, its docstring says "
        "2 %. Fix late_fee, then run python3 check_billing.py.",
        _big_repo_files(),
        _check_big_repo,
        ("services/billing.py",),
    ),
    Task(
        "cli_flag",
        "add a CLI flag",
        "Add a --verbose flag to cli.py: when it is given, print the line 'verbose on' before the sum. "
        "Then run python3 cli.py --verbose 2 3.",
        {"cli.py": CLI},
        _check_cli_flag,
        ("cli.py",),
    ),
    Task(
        "rename_unnamed",
        "rename, files not named",
        "Rename the function get_user to fetch_user everywhere in this project, then run python3 main.py.",
        RENAME_UNNAMED_FILES,
        _check_rename_unnamed,
    ),
]
SETS = {"base": TASKS, "hard": HARD_TASKS, "all": TASKS + HARD_TASKS}
ALL_TASKS = SETS["all"]


def solve(task: Task, root: Path) -> None:
    """Write a right answer for ``task`` into ``root`` (the checkers' own test: each must pass it)."""
    for rel, text in SOLUTIONS[task.name].items():
        if text is None:
            (root / rel).unlink()
        else:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")


SOLUTIONS: dict[str, dict[str, str | None]] = {
    "hello": {},
    "read_answer": {"answer.txt": "Project codeword: amber-falcon-42\n"},
    "create_run": {"hello.py": "print('Hello world')\n"},
    "fix_test": {"calc.py": CALC.replace("a - b", "a + b")},
    "rename": {rel: text.replace("compute_total", "sum_prices") for rel, text in RENAME_FILES.items()},
    "grep_define": {"answer.txt": "pkg/net/wire.py\n"},
    "edit_big": {"config.py": _big_file().replace("TIMEOUT = 30", "TIMEOUT = 45")},
    "recover": {"config.json": '{"name": "demo"}\n'},
    "append_line": {"requirements.txt": REQUIREMENTS + "numpy>=1.26\n"},
    "new_module": {"src/util/strings.py": "def reverse(s):\n    return s[::-1]\n"},
    "count_rows": {"count.txt": "17\n"},
    "fix_syntax": {"app.py": APP.replace("print('OK'", "print('OK')")},
    "json_setting": {"settings.json": SETTINGS.replace("false", "true")},
    "delete_log": {"debug.log": None},
    "add_function": {
        "mathutil.py": MATHUTIL + "\n\ndef clamp(x, low, high):\n    return max(low, min(x, high))\n",
        "test_mathutil.py": TEST_MATHUTIL.replace(
            "from mathutil import add, sub", "from mathutil import add, clamp, sub"
        ).replace("print('ok')", "assert clamp(9, 0, 3) == 3\nprint('ok')"),
    },
    "traceback": {
        "stats.py": "def average(values):\n    if not values:\n        return 0\n" + STATS.split(":\n", 1)[1]
    },
    "rename_class": {rel: text.replace("UserRecord", "Account") for rel, text in RENAME_CLASS_FILES.items()},
    "ini_setting": {"app.ini": APP_INI.replace("8000", "9000")},
    "explain": {},
    "script_run": {"total.py": "print(sum(int(line) for line in open('numbers.txt') if line.strip()))\n"},
    "add_test": {"test_text.py": "from text import slugify\n\nassert slugify('Hello, World!') == 'hello-world'\n"},
    "gitignore": {".gitignore": "*.pyc\n__pycache__/\n*.log\n"},
    "remove_function": {"utils.py": UTILS.replace("def old_helper(x):\n    return x * 42\n\n\n", "")},
    "fix_import": {"main.py": IMPORT_MAIN.replace("format_price", "format_money")},
    "docstring": {"dates.py": DATES.replace("(text):\n", '(text):\n    """A date from YYYY-MM-DD."""\n')},
    # the harder set
    "param_through": {
        "greeting.py": "def format_greeting(name, excited=False):\n    return 'Hello, ' + name + ('!' if excited else '')\n",
        "main.py": GREETING_MAIN.replace("'Ann')", "'Ann', excited=True)"),
    },
    "hidden_bug": {"shop/discount.py": DISCOUNT.replace("/ 10\n", "/ 100\n")},
    "move_function": {
        "timeparse.py": UTILS_TIME[UTILS_TIME.index("def parse_duration") : UTILS_TIME.index("\n\ndef shout")],
        "utils.py": UTILS_TIME[: UTILS_TIME.index("def parse_duration")] + UTILS_TIME[UTILS_TIME.index("def shout") :],
        "main.py": "from timeparse import parse_duration\nfrom utils import shout, slug\n"
        + MOVE_MAIN.split("\n", 1)[1],
    },
    "from_docstring": {
        "textstats.py": TEXTSTATS.replace(
            "    raise NotImplementedError\n",
            "    counts = {}\n    for word in text.lower().split():\n        counts[word] = counts.get(word, 0) + 1\n"
            "    return counts\n",
        )
    },
    "config_code": {
        "config.json": json.dumps({"url": "http://localhost:8000", "timeout": 10, "retries": 3}, indent=2) + "\n",
        "client.py": CLIENT.replace("RETRIES = 5\n\n\n", "").replace("RETRIES)", "config['retries'])"),
    },
    "test_and_fix": {
        "lists.py": LISTS.replace("len(items) - size + 1", "len(items)"),
        "test_lists.py": TEST_LISTS.replace(
            "print", "assert chunk([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]\nprint"
        ),
    },
    "big_repo": {"services/billing.py": _billing().replace("Decimal('0.05') * weeks", "Decimal('0.02') * weeks")},
    "cli_flag": {
        "cli.py": CLI.replace(
            "    args = parser.parse_args()\n",
            "    parser.add_argument('--verbose', action='store_true')\n    args = parser.parse_args()\n"
            "    if args.verbose:\n        print('verbose on')\n",
        )
    },
    "rename_unnamed": {rel: text.replace("get_user", "fetch_user") for rel, text in RENAME_UNNAMED_FILES.items()},
}
