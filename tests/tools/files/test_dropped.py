"""A Python write or edit that takes out a name other files import says so in its result."""

from __future__ import annotations

from pathlib import Path

from navtui.tools.files.dropped import dropped_note, module_name, unresolved_note
from navtui.tools.files.edit import EditTool
from navtui.tools.files.read import ReadTool
from navtui.tools.files.write import WriteTool
from tests.tools.conftest import call

ADMIN = "from app import users\n\n\ndef is_known(user_id):\n    return users.get_user(user_id) is not None\n"


def package(ws: Path) -> None:
    (ws / "app").mkdir()
    (ws / "app" / "__init__.py").write_text("")
    (ws / "app" / "users.py").write_text(
        "USERS = {1: 'ann'}\n\n\ndef get_user(user_id):\n    return USERS.get(user_id)\n"
    )
    (ws / "app" / "admin.py").write_text(ADMIN)
    (ws / "main.py").write_text("from app.admin import is_known\n\nprint(is_known(1))\n")


async def test_a_rewrite_that_drops_an_imported_function_names_it_and_its_importer(ws: Path, ctx) -> None:
    # Qwen2.5-Coder-1.5B, asked to rename get_user across the package (the eval's rename_unnamed), wrote admin.py
    # back with is_known gone; main.py failed three turns later.
    package(ws)
    await call(ReadTool(), ctx, path="app/admin.py")
    new = "from app import users\n\n\ndef fetch_user(user_id):\n    return users.get_user(user_id)\n"
    result = await call(WriteTool(), ctx, path="app/admin.py", content=new)
    assert result.text.splitlines()[-1] == (
        "Note: app/admin.py no longer defines is_known, which main.py imports. Put it back, or change what uses it."
    )


async def test_an_edit_that_renames_a_function_others_import_names_each_importer(ws: Path, ctx) -> None:
    package(ws)
    (ws / "app" / "views.py").write_text("from .users import get_user\n")
    (ws / "report.py").write_text("import app.users\n\nprint(app.users.get_user(1))\n")
    await call(ReadTool(), ctx, path="app/users.py")
    result = await call(EditTool(), ctx, path="app/users.py", old_text="def get_user(", new_text="def fetch_user(")
    assert "Note: app/users.py no longer defines get_user, which app/admin.py, app/views.py, report.py import." in (
        result.text
    )


async def test_removing_a_function_nothing_imports_says_nothing(ws: Path, ctx) -> None:
    # The eval's remove_function: taking out an unused function is the task, not a slip.
    package(ws)
    (ws / "app" / "extra.py").write_text("def used():\n    return 1\n\n\ndef unused():\n    return 2\n")
    (ws / "main.py").write_text("from app.extra import used\n")
    await call(ReadTool(), ctx, path="app/extra.py")
    result = await call(WriteTool(), ctx, path="app/extra.py", content="def used():\n    return 1\n")
    assert "no longer defines" not in result.text


UTILS = "def slug(text):\n    return text.lower()\n\n\ndef parse_duration(text):\n    return int(text[:-1]) * 60\n"
MOVE_MAIN = "from utils import parse_duration, slug\n\nprint(slug('A'), parse_duration('3m'))\n"


async def test_a_moved_name_is_sent_to_its_new_file_and_a_lost_one_is_asked_back(ws: Path, ctx) -> None:
    # The eval's move_function: asked to move parse_duration from utils.py to timeparse.py, Qwen2.5-Coder-1.5B
    # wrote utils.py first, without parse_duration and without slug; one note told it to put both back.
    (ws / "utils.py").write_text(UTILS)
    (ws / "main.py").write_text(MOVE_MAIN)
    ctx.moves = {"parse_duration": "timeparse.py"}
    await call(ReadTool(), ctx, path="utils.py")
    result = await call(WriteTool(), ctx, path="utils.py", content="X = 1\n")
    assert result.text.splitlines()[1:] == [
        "Note: utils.py no longer defines slug, which main.py imports. Put it back, or change what uses it.",
        "Note: utils.py no longer defines parse_duration, which main.py imports; it is in timeparse.py now: change "
        "the import in main.py to `from timeparse import parse_duration`.",
    ]


async def test_a_name_now_defined_in_one_other_file_is_sent_there_and_in_two_asked_back(ws: Path, ctx) -> None:
    (ws / "utils.py").write_text(UTILS)
    (ws / "main.py").write_text(MOVE_MAIN)
    (ws / "lib").mkdir()
    (ws / "lib" / "timing.py").write_text("async def parse_duration(text):\n    return 0\n")
    await call(ReadTool(), ctx, path="utils.py")
    edited = await call(EditTool(), ctx, path="utils.py", old_text="def parse_duration(", new_text="def parse(")
    assert (
        "Note: utils.py no longer defines parse_duration, which main.py imports; it is in lib/timing.py now: change "
        "the import in main.py to `from lib.timing import parse_duration`."
    ) in edited.text.splitlines()
    # Defined in two other files (an assignment counts, a call or a comparison does not): which one is meant is
    # not guessed.
    (ws / "other.py").write_text("parse_duration: object = None\nslug('x')\nslug == 1\n")
    await call(ReadTool(), ctx, path="utils.py")
    again = await call(EditTool(), ctx, path="utils.py", old_text="def slug(", new_text="def slugify(")
    assert "Note: utils.py no longer defines slug, which main.py imports. Put it back, or change what uses it." in (
        again.text.splitlines()
    )
    assert dropped_note(ws, ws / "utils.py", UTILS, "X = 1\n") == (
        "Note: utils.py no longer defines parse_duration, which main.py imports; slug, which main.py imports. Put it "
        "back, or change what uses it."
    )


def test_unparsable_code_other_files_and_new_files_are_left_alone(ws: Path) -> None:
    package(ws)
    admin = ws / "app" / "admin.py"
    assert dropped_note(ws, admin, ADMIN, "def is_known(:\n") is None  # a syntax error is another check's
    assert dropped_note(ws, ws / "notes.txt", "is_known\n", "") is None
    assert dropped_note(ws, admin, "", "x = 1\n") is None  # created: nothing was there to drop
    assert dropped_note(ws, admin, ADMIN, ADMIN + "\n\ndef more():\n    pass\n") is None  # only added


def test_module_names() -> None:
    assert module_name("app/admin.py") == "app.admin"
    assert module_name("app/__init__.py") == "app"
    assert module_name("main.py") == "main"


async def test_a_test_file_that_copies_the_function_it_imports_is_told_the_copy_hides_it(ws: Path, ctx) -> None:
    # The eval's test_and_fix: the 1.5B wrote the buggy chunk into test_lists.py under the import; the test ran
    # the copy, and fixing lists.py could never make it pass.
    (ws / "lists.py").write_text("def chunk(items, size):\n    return []\n")
    (ws / "test_lists.py").write_text("from lists import chunk\n\nassert chunk([1], 1) == []\n")
    await call(ReadTool(), ctx, path="test_lists.py")
    copied = (
        "from lists import chunk\n\ndef chunk(items, size):\n    return []\n\nassert chunk([1, 2], 1) == [[1], [2]]\n"
    )
    result = await call(WriteTool(), ctx, path="test_lists.py", content=copied)
    assert result.text.splitlines()[-1] == (
        "Note: test_lists.py imports chunk from lists, then defines its own, which hides the import: the code below "
        "it uses the copy. Remove the copy to use the module's."
    )
    fixed = "from lists import chunk\n\nassert chunk([1, 2], 1) == [[1], [2]]\n"
    assert "hides" not in (await call(WriteTool(), ctx, path="test_lists.py", content=fixed)).text


def test_a_fallback_definition_under_try_is_not_a_copy(ws: Path) -> None:
    from navtui.tools.files.dropped import shadowed_note

    fallback = "try:\n    from fast import parse\nexcept ImportError:\n    def parse(text):\n        return text\n"
    assert shadowed_note(ws, ws / "a.py", fallback) is None
    assert shadowed_note(ws, ws / "a.txt", "from x import y\ndef y(): pass\n") is None


async def test_an_import_of_names_a_workspace_module_does_not_define_says_where_they_are(ws: Path, ctx) -> None:
    # The eval's move_function: the 1.5B moved parse_duration to timeparse.py and wrote main.py's import as
    # `from timeparse import parse_duration, shout, slug`; shout and slug stayed in utils.py.
    (ws / "utils.py").write_text(UTILS.replace("def parse_duration", "def shout(text):\n    return text\n\n\ndef pd"))
    (ws / "timeparse.py").write_text("import re\n\n\ndef parse_duration(text):\n    return 1\n")
    (ws / "main.py").write_text(MOVE_MAIN)
    await call(ReadTool(), ctx, path="main.py")
    content = "from timeparse import parse_duration, shout, slug\nfrom utils import slug\n\nprint(slug('A'))\n"
    result = await call(WriteTool(), ctx, path="main.py", content=content)
    assert result.text.splitlines()[1:] == [
        "Note: main.py imports shout, slug from timeparse, which does not define them. utils.py defines them: "
        "import them from utils."
    ]


async def test_what_a_module_offers_is_read_whole_and_only_workspace_modules_are_checked(ws: Path, ctx) -> None:
    (ws / "shop").mkdir()
    (ws / "shop" / "__init__.py").write_text("from .discount import percent_off as off\n")
    (ws / "shop" / "discount.py").write_text(
        "import json, os.path\nfrom typing import Any as Whatever\ntry:\n    import tomllib\nexcept ImportError:\n"
        "    tomllib = None\nif True:\n    RATE: float = 0.1\nelse:\n    def fallback():\n        pass\n"
        "for LAST in range(2):\n    pass\nwith open(__file__) as (HANDLE):\n    pass\n\n\n"
        "def percent_off(price, percent):\n    inner = 1\n    return price\n"
    )
    (ws / "shop" / "pricing.py").write_text("")
    ok = (
        "from shop.discount import json, os, Whatever, tomllib, RATE, fallback, LAST, HANDLE, percent_off\n"
        "from shop import off, pricing\nfrom os import nothing_either\nimport shop\n"
    )
    result = await call(WriteTool(), ctx, path="main.py", content=ok)
    assert "Note:" not in result.text
    (ws / "shop" / "sale.py").write_text("")
    await call(ReadTool(), ctx, path="shop/sale.py")
    bad = "from .discount import inner, percent_off\nfrom . import missing\n"
    result = await call(WriteTool(), ctx, path="shop/sale.py", content=bad)
    assert result.text.splitlines()[1:] == [
        "Note: shop/sale.py imports inner from .discount, which does not define it. Define it there, or import it "
        "from the module that does.",
        "Note: shop/sale.py imports missing from ., which does not define it. Define it there, or import it from "
        "the module that does.",
    ]
    # A module that may offer any name is not judged; one the same reply writes later is not read yet.
    (ws / "shop" / "discount.py").write_text("def __getattr__(name):\n    return name\n")
    (ws / "shop" / "more.py").write_text("from os.path import *\n")
    await call(ReadTool(), ctx, path="shop/sale.py")
    later = await call(
        WriteTool(),
        ctx,
        path="shop/sale.py",
        content="from .discount import a\nfrom .more import b\nfrom .x import c\n",
    )
    assert "Note:" not in later.text
    assert unresolved_note(ws, ws / "main.py", "from shop.pricing import total\n", {"shop/pricing.py"}) is None
    assert unresolved_note(ws, ws / "main.py", "from shop.pricing import total\n") is not None
