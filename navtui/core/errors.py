"""Exceptions that carry a message meant for the user; the UI and CLI catch them at the edge."""

from __future__ import annotations

from navtui.core.secrets import mask_secrets


class NavtuiError(Exception):
    """An expected failure with a user-facing message (and optionally what to do about it).

    Secrets are masked on the way in (``core.secrets``): messages often quote what a server or a file said.
    """

    masked = True

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        if self.masked:
            message = mask_secrets(message)
            hint = mask_secrets(hint) if hint else hint
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class ConfigError(NavtuiError):
    """Settings, theme or context files that cannot be used as written."""


class ProviderError(NavtuiError):
    """A provider failed: connection, HTTP status, a broken stream or a timeout.

    ``kind`` is one of: connection, http, stream, timeout, overflow, auth, not_found, unsupported, quota,
    model_output, refusal (a reply the model's provider stopped on policy grounds).
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str = "http",
        status: int | None = None,
        retryable: bool = False,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.kind = kind
        self.status = status
        self.retryable = retryable


class ToolError(NavtuiError):
    """A tool could not do what was asked; the message goes back to the model as an error result.

    Not masked: it quotes the files the model works on (as ``read`` does), and a masked quote would have the
    model edit ``****``. The session file masks it like any other tool result.
    """

    masked = False
