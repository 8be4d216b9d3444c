"""A provider around another that changes only how tool calls travel (the text protocol, constrained decoding).

The wrapper keeps the inner provider's name, model, endpoint, the reason its protocol was chosen and its
tool-call id counter (a session that switched protocols mid-way keeps unique ids); ``model_info`` says which
protocol is in use. What is not about tool calls is the inner provider's.
"""

from __future__ import annotations

from dataclasses import replace

from navtui.providers.base import ModelInfo, Provider
from navtui.providers.toolargs import call_ids


class WrappedProvider(Provider):
    tool_protocol = ""  # what model_info's ``extra["tool_protocol"]`` says: "text", "constrained"

    def __init__(self, inner: Provider) -> None:
        super().__init__(inner.model, inner.base_url)
        self.inner = inner
        self.name = inner.name
        self.protocol_reason = inner.protocol_reason
        self.new_call_id = getattr(inner, "new_call_id", None) or call_ids()

    async def model_info(self) -> ModelInfo:
        info = await self.inner.model_info()
        return replace(info, supports_tools=True, extra={**info.extra, "tool_protocol": self.tool_protocol})

    async def list_models(self) -> list[str]:
        return await self.inner.list_models()

    async def aclose(self) -> None:
        await self.inner.aclose()
