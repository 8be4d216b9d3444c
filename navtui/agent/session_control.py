"""The session file a run writes to: opened from the launch options, replaced by /new, /clear, /branch and /resume,
and told which model and thinking level the run is on.

``SessionControl`` holds the current ``SessionManager`` (``None`` for an ephemeral run) and whether it already
says which model this run uses. It knows nothing of the agent or the provider: it is handed what to record.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from navtui.core.errors import NavtuiError

if TYPE_CHECKING:
    from navtui.config.launch import LaunchOptions
    from navtui.session.context import SessionContext
    from navtui.session.entries import Entry
    from navtui.session.manager import SessionManager


class SessionControl:
    def __init__(self, session: SessionManager | None) -> None:
        self.current = session
        self.model_recorded = False  # the session says which model and thinking level this run is on

    @classmethod
    def open(cls, cwd: Path, options: LaunchOptions) -> tuple[SessionControl, list[str]]:
        """The session ``options`` ask for (resumed, continued, new or none); and what to tell the user."""
        if options.ephemeral:
            return cls(None), []
        from navtui.session.manager import SessionManager

        warnings: list[str] = []
        session = None
        if options.resume:
            session = SessionManager.open(SessionManager.resolve(cwd, options.resume))
        elif options.continue_session:
            session = SessionManager.continue_recent(cwd)
            if session is None:
                from navtui.session.listing import unreadable_folders

                warnings.extend(unreadable_folders(cwd))
                warnings.append("No earlier session in this directory; starting a new one.")
        if session is None:
            return cls(SessionManager.create(cwd)), warnings
        warnings.extend(session.warnings)
        session, moved = cls.writable(session, cwd)
        if moved is not None:
            warnings.append(moved)
        return cls(session), warnings

    @staticmethod
    def writable(session: SessionManager, cwd: Path) -> tuple[SessionManager, str | None]:
        """``session``, or when it cannot be appended to its history continued in a new file (never write into a
        file that cannot be read properly), and what to tell the user then. At the start (``-c``, ``-r``) and on
        /resume: there, the read-only session refused the next message. The new file's cwd is ``cwd`` (the run's) when
        the session's header says none."""
        if not session.read_only_reason:
            return session, None
        branched = session.create_branched_session(session.leaf_id, cwd=cwd)
        return branched, (
            f"{session.path.name} cannot be appended to ({session.read_only_reason}); "
            f"continuing in a new session file {branched.path.name}."
        )

    def context(self, read_along: Callable[[Entry], None] | None = None) -> SessionContext | None:
        """The model's context at the current leaf (``None`` without a session file); ``read_along`` is given the
        path's entries as they are read for it (``SessionManager.build_context``)."""
        return self.current.build_context(read_along=read_along) if self.current is not None else None

    def resumed_context(self, read_along: Callable[[Entry], None] | None = None) -> SessionContext | None:
        """The context of a session being continued: ``None`` for a new (empty) one."""
        if self.current is None or self.current.leaf_id is None:
            return None
        return self.context(read_along)

    # ------------------------------------------------------------------ replacing the session
    def new(self, cwd: Path) -> None:
        """/new: a fresh session file; the one left is synced and closed (as on /resume)."""
        if self.current is not None:
            from navtui.session.manager import SessionManager

            self.switch(SessionManager.create(cwd))
        self.model_recorded = False

    def clear(self) -> None:
        """/clear: the same file, the next entry starts a new root (which records the model again)."""
        if self.current is not None:
            self.current.reset_leaf()
        self.model_recorded = False

    def switch(self, session: SessionManager) -> None:
        """/branch and /resume: continue in ``session``; the one left is synced and closed."""
        old, self.current = self.current, session
        if old is not None and old is not session:
            old.sync()
            old.close()
        self.model_recorded = False

    # ------------------------------------------------------------------ recording
    def record_model(
        self,
        current: tuple[str, str],
        thinking_level: str,
        recorded: tuple[str, str] | None,
        *,
        base_url: str | None = None,
        recorded_base_url: str | None = None,
    ) -> None:
        """Before a run's first prompt: record the model (provider, name), its endpoint and the thinking level the
        run is on, when they are not what the session already says (a new session, a new root after /clear, a
        flag or fallback that changed them). ``recorded``: the model the resumed session was using."""
        session = self.current
        if session is None or self.model_recorded:
            return
        self.model_recorded = True
        if session.leaf_id is None or recorded != current or (base_url and recorded_base_url != base_url):
            self._append_model_change(*current, base_url)
        if session.build_context().thinking_level != thinking_level:
            session.append_thinking_level_change(thinking_level)

    def record_model_change(self, provider: str, model: str, base_url: str | None = None) -> None:
        if self.current is not None and self.current.leaf_id is not None:
            self._append_model_change(provider, model, base_url)
            self.model_recorded = True

    def _append_model_change(self, provider: str, model: str, base_url: str | None) -> None:
        from navtui.session.foreign import custom_name_for

        assert self.current is not None
        # An OpenAI-compatible server is recorded under the name pi and omp give it, so they resume it too.
        name = custom_name_for(provider, base_url) if base_url and provider == "openai" else None
        self.current.append_model_change(name or provider, model, base_url=base_url)

    def record_thinking_level(self, level: str) -> None:
        if self.current is not None and self.current.leaf_id is not None:
            self.current.append_thinking_level_change(level)

    def set_name(self, name: str) -> None:
        if self.current is None:
            raise NavtuiError("This run has no session file to name")
        self.current.set_name(name)

    def path_entries(self) -> Sequence[Entry]:
        """The session entries from the root to the current leaf (what the transcript shows), parsed as they are
        read."""
        if self.current is None:
            return []
        return self.current.display_items()

    def sync(self) -> None:
        if self.current is not None:
            self.current.sync()

    def close(self) -> None:
        """The runtime is done: what is pending is written, and the session file's descriptor closed (it is a raw
        descriptor, which nothing closes when the manager is dropped; an entry written after this opens it again)."""
        if self.current is not None:
            self.current.sync()
            self.current.close()
