"""Handlers looked up once per class (widgets/handlers.py) are the ones Textual's own look-up finds, in its order,
for every message the prompt and the app get: ``@on`` handlers with and without selectors, a handler in a base
class and its override, a message's base classes, ``prevent_default`` part way."""

from __future__ import annotations

from typing import Any

from textual import events, on
from textual.app import App, ComposeResult
from textual.message import Message
from textual.message_pump import MessagePump
from textual.widget import Widget
from textual.widgets import Button, TextArea

from navtui.app.app import NavtuiApp
from navtui.widgets.handlers import CachedHandlers
from navtui.widgets.prompt import PromptEditor


class Base(CachedHandlers, Widget):
    def on_key(self, event: events.Key) -> None: ...

    @on(Button.Pressed)
    def pressed_anywhere(self, event: Button.Pressed) -> None: ...

    def _on_mount(self, event: events.Mount) -> None: ...


class Child(Base):
    def on_key(self, event: events.Key) -> None: ...

    @on(Button.Pressed, "#yes")
    def pressed_yes(self, event: Button.Pressed) -> None: ...

    @on(Button.Pressed, "#no")
    def pressed_no(self, event: Button.Pressed) -> None: ...

    @on(Message)
    def any_message(self, event: Message) -> None: ...


def textual(pump: MessagePump, name: str, message: Message) -> list[Any]:
    return list(MessagePump._get_dispatch_methods(pump, name, message))


def cached(pump: MessagePump, name: str, message: Message) -> list[Any]:
    return list(pump._get_dispatch_methods(name, message))


class Buttons(App[None]):
    def compose(self) -> ComposeResult:
        yield Child(id="child")
        yield Button("yes", id="yes")
        yield Button("no", id="no")


async def test_the_cached_look_up_finds_what_textual_finds() -> None:
    app = Buttons()
    async with app.run_test():
        child = app.query_one(Child)
        prompt = PromptEditor()
        messages: list[tuple[str, Message]] = [
            ("on_key", events.Key("a", "a")),
            ("on_idle", events.Idle()),
            ("on_mount", events.Mount()),
            ("on_paste", events.Paste("x")),
            ("on_focus", events.Focus()),
            ("on_text_area_changed", TextArea.Changed(prompt)),
            ("on_text_area_selection_changed", TextArea.SelectionChanged(prompt.selection, prompt)),
        ]
        for button in app.query(Button):
            messages.append(("on_button_pressed", Button.Pressed(button)))
        messages.append(("on_button_pressed", Button.Pressed(Button("unmounted"))))  # no sender: selectors skip
        for pump in (child, prompt):
            for name, message in messages:
                for _ in range(2):  # the second from the cache
                    assert cached(pump, name, message) == textual(pump, name, message), (type(pump), name)
        # a handler in the base class overridden: both found, in the MRO's order; selectors match as the message is
        found = cached(child, "on_button_pressed", Button.Pressed(app.query_one("#yes", Button)))
        assert [method.__name__ for _, method in found] == ["pressed_yes", "any_message", "pressed_anywhere"]
        on_key = [method.__name__ for _, method in cached(child, "on_key", events.Key("a", "a"))]
        assert on_key[:3] == ["any_message", "on_key", "on_key"]  # Child's, Base's (then Widget's own)


def test_prevent_default_stops_at_the_next_class_as_in_textual() -> None:
    prompt = PromptEditor()
    for steps in range(4):
        runs = []
        for look_up in (cached, textual):
            message = events.Key("a", "a")
            found = []
            methods = prompt._get_dispatch_methods if look_up is cached else None
            iterator = iter(
                methods("on_key", message) if methods else MessagePump._get_dispatch_methods(prompt, "on_key", message)
            )
            for step, item in enumerate(iterator):
                found.append(item)
                if step == steps:
                    message.prevent_default()
            runs.append(found)
        assert runs[0] == runs[1], steps


def test_the_prompt_and_the_app_use_it() -> None:
    for cls in (PromptEditor, NavtuiApp):
        assert cls._get_dispatch_methods is CachedHandlers._get_dispatch_methods
    assert "_get_dispatch_methods" in MessagePump.__dict__  # (Textual's name, overridden)
