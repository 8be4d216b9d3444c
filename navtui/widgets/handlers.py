"""Message handlers looked up once per class, not at every message.

Textual finds a message's handlers at every dispatch (``MessagePump._get_dispatch_methods``): it walks the
receiver's whole MRO, and for each class looks up its ``@on`` handlers for each class of the message's MRO and its
``_on_x`` / ``on_x`` method by name. For the prompt that is ~10 classes at each of a key's messages (the key, its
``Changed``, the idle round): ~0.015-0.03 ms each, every key. What it finds depends only on the classes (the
``@on`` table and the methods are fixed when a class is made), so ``CachedHandlers`` keeps, per receiver class,
handler name and message class, the classes that have a handler and what they have; each dispatch then does what
Textual does with them, in the same order: it stops at the first class after ``prevent_default``, yields each
function once, and matches ``@on`` selectors against the message as it is. A handler set on a class after its
first message of that kind (monkeypatching) is not seen: navtui does not do that.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from textual._on import OnNoWidget
from textual.css.match import match
from textual.message import Message
from textual.message_pump import MessagePump
from textual.widget import Widget

Plan = list[tuple[type, list[tuple[Callable[..., Any], dict[str, Any]]], Callable[..., Any] | None]]

_plans: dict[tuple[type, str, type], Plan] = {}


def _plan(receiver: type, method_name: str, message_type: type) -> Plan:
    """What Textual's look-up finds in each class of ``receiver``'s MRO (the classes with nothing left out)."""
    message_mro = [kind for kind in message_type.__mro__ if issubclass(kind, Message)]
    plan: Plan = []
    for cls in receiver.__mro__:
        decorated: list[tuple[Callable[..., Any], dict[str, Any]]] = []
        table = cls.__dict__.get("_decorated_handlers")
        if table:
            for message_class in message_mro:
                decorated.extend(table.get(message_class, []))
        method = cls.__dict__.get(f"_{method_name}") or cls.__dict__.get(method_name)
        if method is not None and getattr(method, "_textual_on", None):
            method = None
        if decorated or method is not None:
            plan.append((cls, decorated, method))
    return plan


class CachedHandlers(MessagePump):
    def _get_dispatch_methods(
        self, method_name: str, message: Message
    ) -> Iterable[tuple[type, Callable[[Message], Awaitable[Any]]]]:
        key = (self.__class__, method_name, message.__class__)
        plan = _plans.get(key)
        if plan is None:
            plan = _plans[key] = _plan(self.__class__, method_name, message.__class__)
        dispatched: set[Callable[..., Any]] = set()
        for cls, decorated, method in plan:
            if message._no_default_action:
                break
            for function, selectors in decorated:
                if function in dispatched:
                    continue
                if not selectors:
                    yield cls, function.__get__(self, cls)
                    dispatched.add(function)
                    continue
                if not message._sender:
                    continue
                for attribute, selector in selectors.items():
                    node = getattr(message, attribute)
                    if node is None:
                        break
                    if not isinstance(node, Widget):
                        raise OnNoWidget(f"on decorator can't match against {attribute!r} as it is not a widget.")
                    if not match(selector, node):
                        break
                else:
                    yield cls, function.__get__(self, cls)
                    dispatched.add(function)
            if method is not None:
                yield cls, method.__get__(self, cls)
