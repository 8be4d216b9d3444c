"""S11: random append/branch/label/reset/compact/handover/cancel/crash/reload sequences.

After every step: reloading the file gives the same entries and the same tree as memory (I1: a crash loses
only the record being written), and the context at every entry of the tree (each a possible leaf) is a valid
conversation (I2).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from navtui.core.messages import AssistantMessage, TextBlock, ToolCall, ToolResultMessage, UserMessage
from navtui.session.manager import SessionManager, TreeNode
from tests.session.helpers import conversation_problems

# No uppercase, '-' or '_' and at most 30 characters: nothing here can look like an API key, so what is
# written is exactly what is in memory. U+2028, quotes, backslashes, NULs and emoji are all in play.
TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Lu"), exclude_characters="-_"),
    max_size=30,
)


def _flatten(roots: list[TreeNode]) -> list[tuple[int, dict, str | None]]:
    out = []
    stack = [(0, node) for node in reversed(roots)]
    while stack:
        depth, node = stack.pop()
        out.append((depth, node.entry.to_json(), node.label))
        stack.extend((depth + 1, child) for child in reversed(node.children))
    return out


class SessionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.directory = Path(tempfile.mkdtemp(prefix="navtui-session-prop-"))
        self.session = SessionManager.create(self.directory, root=self.directory / "sessions")
        self.calls: list[ToolCall] = []
        self.torn = False  # a crash left a half-written record in the file

    def teardown(self) -> None:
        self.session.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    def _ids(self) -> list[str]:
        return [entry.id for entry in self.session.entries if entry.id is not None]

    # ------------------------------------------------------------------ appends
    @rule(text=TEXT)
    def user(self, text: str) -> None:
        self.session.append_message(UserMessage(content=text))

    @rule(text=TEXT, calls=st.integers(0, 3), stop=st.sampled_from(["stop", "aborted", "error", "length"]))
    def assistant(self, text: str, calls: int, stop: str) -> None:
        new_calls = [ToolCall(id=f"call{len(self.calls) + i}", name="read", arguments={"n": i}) for i in range(calls)]
        self.calls.extend(new_calls)
        blocks: list = ([TextBlock(text=text)] if text else []) + new_calls
        self.session.append_message(AssistantMessage(content=blocks, stop_reason=stop))  # type: ignore[arg-type]

    @precondition(lambda self: self.calls)
    @rule(data=st.data(), text=TEXT, error=st.booleans())
    def tool_result(self, data: st.DataObject, text: str, error: bool) -> None:
        call = data.draw(st.sampled_from(self.calls))
        self.session.append_message(ToolResultMessage.of(call, text, is_error=error))

    @rule(kind=st.sampled_from(["handover", "advisor", "index_context"]), text=TEXT, display=st.booleans())
    def custom_message(self, kind: str, text: str, display: bool) -> None:
        self.session.append_custom_message(kind, text, display=display)

    @rule(data=st.data(), summary=TEXT)
    def compaction(self, data: st.DataObject, summary: str) -> None:
        first_kept = data.draw(st.sampled_from([None, "ffffffff", *self._ids()]))
        self.session.append_compaction(summary, first_kept, data.draw(st.integers(0, 10**6)))

    @rule(provider=st.sampled_from(["ollama", "anthropic"]), model=TEXT, level=st.sampled_from(["off", "high"]))
    def state_changes(self, provider: str, model: str, level: str) -> None:
        self.session.append_model_change(provider, model)
        self.session.append_thinking_level_change(level)

    @rule(name=st.none() | TEXT)
    def name(self, name: str | None) -> None:
        self.session.set_name(name)

    @precondition(lambda self: self.session.entries)
    @rule(data=st.data(), label=st.none() | TEXT)
    def label(self, data: st.DataObject, label: str | None) -> None:
        self.session.append_label(data.draw(st.sampled_from(self._ids())), label)

    # ------------------------------------------------------------------ moving the leaf
    @precondition(lambda self: self.session.entries)
    @rule(data=st.data())
    def branch(self, data: st.DataObject) -> None:
        self.session.branch(data.draw(st.sampled_from(self._ids())))

    @rule()
    def reset(self) -> None:
        self.session.reset_leaf()

    @rule(data=st.data(), summary=TEXT)
    def branch_with_summary(self, data: st.DataObject, summary: str) -> None:
        target = data.draw(st.sampled_from([None, *self._ids()]))
        self.session.branch_with_summary(target, summary)

    @precondition(lambda self: self.session.path.exists())
    @rule(data=st.data())
    def crash_mid_append(self, data: st.DataObject) -> None:
        """The process dies while writing a record that was never acknowledged: a prefix of it stays on disk."""
        self.session.close()
        record = (
            b'{"type":"message","id":"deadbeef","parentId":null,"message":{"role":"user","content":"lost \xc3\xa9"}}'
        )
        cut = data.draw(st.integers(1, len(record) - 1))
        with open(self.session.path, "ab") as handle:
            handle.write(record[:cut])
        self.torn = True
        self.session = SessionManager.open(self.session.path)

    @precondition(lambda self: self.session.path.exists())
    @rule()
    def reload(self) -> None:
        self.session.close()
        self.session = SessionManager.open(self.session.path)
        assert self.session.leaf_id == (self._ids() or [None])[-1]

    # ------------------------------------------------------------------ what must always hold
    @invariant()
    def reloaded_tree_equals_memory(self) -> None:
        if not self.session.path.exists():
            assert self.session.entries == []
            return
        reloaded = SessionManager.open(self.session.path)
        assert len(reloaded.warnings) == (1 if self.torn else 0)  # torn fragments: one warning, never fused
        assert [e.to_json() for e in reloaded.entries] == [e.to_json() for e in self.session.entries]
        assert _flatten(reloaded.get_tree()) == _flatten(self.session.get_tree())
        assert reloaded.name == self.session.name

    @invariant()
    def every_leaf_has_a_valid_context(self) -> None:
        for entry_id in self._ids():
            context = self.session.build_context(entry_id)
            assert conversation_problems(context.messages) == [], (entry_id, context.messages)
            path = self.session.get_branch(entry_id)
            assert path[-1].id == entry_id and path[0].parent_id is None
            assert self.session.display_items(entry_id) == path


def run_histories(examples: int, steps: int) -> None:
    """Run ``examples`` random histories of up to ``steps`` steps (the soak profile runs many more)."""
    run_state_machine_as_test(
        SessionMachine,
        settings=settings(
            max_examples=examples,
            stateful_step_count=steps,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        ),
    )


def test_s11_random_histories_with_crashes_keep_every_acknowledged_entry() -> None:
    run_histories(40, 25)
