"""How /undo's dialog and the tree's code question look (pytest-textual-snapshot)."""

from __future__ import annotations

from typing import Any

from navtui.app.screens.restore import RestoreCodeScreen, UndoScreen
from navtui.checkpoints.present import FileLine
from tests.app.tree_sessions import HostApp

SIZE = (100, 30)
LINES = [
    FileLine("calc.py", "changed", conflict=True),
    FileLine("tests/test_calc.py", "created"),
    FileLine("src/helpers.py", "renamed", "from src/util.py"),
    FileLine("old_main.py", "deleted"),
    FileLine("run.sh", "mode", "644 → 755"),
    FileLine("current", "link created"),
    FileLine("data/big.bin", "not kept", "too large for checkpoints; cannot be put back"),
    FileLine("evil\x1b]52;c;aGk=\x07name.py", "created"),  # a name a model chose: shown inert
]
DIFF = """--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a + b
+    return a - b
--- /dev/null
+++ b/tests/test_calc.py
@@ -0,0 +1 @@
+assert True
"""


def test_undo_dialog(snap_compare: Any) -> None:
    assert snap_compare(HostApp(UndoScreen(LINES, DIFF)), terminal_size=SIZE)


def test_undo_dialog_with_the_diff_and_overwrite(snap_compare: Any) -> None:
    async def open_diff(pilot: Any) -> None:
        pilot.app.screen._opened -= 1  # past the dialog's 0.3 s of deaf keys
        await pilot.press("d", "o")

    assert snap_compare(HostApp(UndoScreen(LINES, DIFF)), terminal_size=(100, 40), run_before=open_diff)


def test_tree_code_question(snap_compare: Any) -> None:
    lines = [FileLine("calc.py", "changed"), FileLine("tests/test_calc.py", "created")]
    assert snap_compare(HostApp(RestoreCodeScreen(lines, DIFF)), terminal_size=SIZE)


def test_branch_code_question(snap_compare: Any) -> None:
    lines = [FileLine("calc.py", "changed", conflict=True)]
    assert snap_compare(HostApp(RestoreCodeScreen(lines, DIFF, branch=True)), terminal_size=SIZE)
