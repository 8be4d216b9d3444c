"""A provider around another that changes only how tool calls travel (the text protocol, constrained decoding).

The wrapper keeps the inner provider's name, model, endpoint, the reason its protocol was chosen, its retry
policy (the agent asks again by it after an answer that broke off) and its tool-call id counter (a session that
switched protocols mid-way keeps unique ids); ``model_info`` says which protocol is in use. What is not about
tool calls is the inner provider's: the model list (Ollama's says what is loaded), downloads, the server's
tokenizer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

from navtui.providers.base import ListedModel, ModelInfo, Provider, PullProgress
from navtui.providers.toolargs import call_ids


class WrappedProvider(Provider):
    tool_protocol = ""  # what model_info's ``extra["tool_protocol"]`` says: "text", "constrained"

    def __init__(self, inner: Provider) -> None:
        super().__init__(inner.model, inner.base_url)
        self.inner = inner
        self.name = inner.name
        self.protocol_reason = inner.protocol_reason
        self.retry = inner.retry  # the same object: a fake clock injected into either is the one both wait on
        self.new_call_id = getattr(inner, "new_call_id", None) or call_ids()
        self.can_pull = inner.can_pull

    @property
    def continues_reply(self) -> bool:
        return self.inner.continues_reply

    async def model_info(self) -> ModelInfo:
        info = await self.inner.model_info()
        return replace(info, supports_tools=True, extra={**info.extra, "tool_protocol": self.tool_protocol})

    async def list_models(self) -> list[str]:
        return await self.inner.list_models()

    async def describe_models(self) -> list[ListedModel]:
        return await self.inner.describe_models()

    def pull(self, name: str) -> AsyncIterator[PullProgress]:
        return self.inner.pull(name)

    @property
    def counts_tokens(self) -> bool:
        return self.inner.counts_tokens

    async def count_tokens(self, text: str) -> int | None:
        return await self.inner.count_tokens(text)

    async def aclose(self) -> None:
        await self.inner.aclose()
