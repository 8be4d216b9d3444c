"""What an OpenAI-compatible server's refusal means: the error navtui says and whether it is tried again."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from navtui.core.errors import ProviderError
from navtui.providers.errorbody import readable
from navtui.providers.retry import is_context_overflow, is_model_output_error, is_quota_error, retryable_status
from navtui.providers.streaming import RetryableError, retry_after_seconds

if TYPE_CHECKING:
    import httpx


def api_key_from_env() -> str | None:
    return os.environ.get("NAVTUI_API_KEY") or os.environ.get("OPENAI_API_KEY") or None


_IMAGE_REFUSALS = (
    "not supported",  # llama.cpp: "image input is not supported - hint: ... provide the mmproj"
    "not a multimodal",  # vLLM
    "does not support",  # LM Studio: "Model does not support images"
    "only supported by certain models",  # OpenAI: "image_url is only supported by certain models"
    "missing data required for image",  # Ollama's /v1 with a model without vision
    "at most 0 image",  # vLLM's limit per prompt
)


def refuses_images(status: int, error: ProviderError) -> bool:
    """Whether the server answered a request that carried images that it does not take images (for this model)."""
    lowered = error.message.lower()
    return status in (400, 422, 500) and "image" in lowered and any(words in lowered for words in _IMAGE_REFUSALS)


def may_not_list(exc: ProviderError) -> bool:
    """A refusal of the model list that says nothing of the key being wrong: a 403, or OpenAI's 401 for a restricted
    key without the Models read scope ("insufficient permissions ... Missing scopes: api.model.read")."""
    lowered = exc.message.lower()
    return exc.status == 403 or "missing scope" in lowered or "insufficient permission" in lowered


def status_error(response: httpx.Response, model: str, base_url: str, *, tools: bool = False) -> ProviderError:
    try:
        body: Any = response.json()
    except ValueError:
        body = readable(response.text, response.headers.get("content-type"))  # a proxy's page: its title
    return error_for(response.status_code, body, response.headers, model, base_url, tools=tools)


def error_for(
    status: int, body: Any, headers: Any, model: str, base_url: str, *, tools: bool = False, said: str | None = None
) -> ProviderError:
    """The error for an answer with this ``status`` and (decoded) ``body``; ``said``: how the server said it, when
    not as that status (an error object in a 200)."""
    said = said or f"HTTP {status}"
    error = body.get("error", body) if isinstance(body, dict) else body
    message = str(error.get("message", error) if isinstance(error, dict) else error).strip()[:500] or f"HTTP {status}"
    code = str(error.get("code") or error.get("type") or "") if isinstance(error, dict) else ""
    lowered = f"{message} {code}".lower()
    if status in (401, 403):
        variable = "NAVTUI_API_KEY" if os.environ.get("NAVTUI_API_KEY") else "OPENAI_API_KEY"
        if api_key_from_env():  # a key was sent: saying "set it" would send the user looking in the wrong place
            return ProviderError(f"{base_url} refused the API key in {variable} ({said}): {message}",
                                 kind="auth", status=status,
                                 hint=f"check {variable} (expired, revoked, or for another server than -b)")  # fmt: skip
        return ProviderError(f"{base_url} refused the credentials ({said}): {message}", kind="auth",
                             status=status, hint="set OPENAI_API_KEY or NAVTUI_API_KEY")  # fmt: skip
    if status == 404:
        return ProviderError(f"{base_url}: model '{model}' or the endpoint was not found: {message}", kind="not_found",
                             status=404, hint="check the model name and that -b points at the API root (…/v1)")  # fmt: skip
    if is_quota_error(lowered) or ("quota" in lowered and status == 429):
        return ProviderError(f"Quota exhausted at {base_url}: {message}", kind="quota", status=status,
                             hint="check the account's billing and limits")  # fmt: skip
    if is_context_overflow(lowered):
        return ProviderError(f"The conversation is too long for {model}: {message}", kind="overflow", status=status)
    if status == 400 and tools and "tool" in lowered and ("support" in lowered or "jinja" in lowered):
        return ProviderError(message, kind="unsupported", status=400, hint="set providers.tool_protocol to text")
    if is_model_output_error(message):
        return ProviderError(f"The model wrote a tool call {base_url} could not parse ({said}: {message})",
                             kind="model_output", status=status, retryable=True)  # fmt: skip
    if retryable_status(status):
        return RetryableError(f"{base_url} answered {said}: {message}", status=status,
                              retry_after=retry_after_seconds(headers))  # fmt: skip
    return ProviderError(f"{base_url} answered {said}: {message}", status=status)
