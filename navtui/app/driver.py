"""Textual's terminal driver, noting when its input thread reads a key (``widgets/pacing.py``).

A key read from the terminal is posted to the app's queue, behind whatever the event loop has queued already: a
Markdown flush, a frame of streamed output. Noted here, on the input thread, the moment it is read, those wait
for it instead (``InputPacer.key_waiting``).
"""

from __future__ import annotations

from textual import events, messages
from textual.drivers.linux_driver import LinuxDriver

from navtui.widgets.pacing import pacer_of


class KeyNoticingDriver(LinuxDriver):
    def process_message(self, message: messages.Message) -> None:
        # Runs on the input thread: only a timestamp is set on the app's pacer.
        if isinstance(message, events.Key):
            pacer = pacer_of(self._app)
            if pacer is not None:
                pacer.read()
        super().process_message(message)
