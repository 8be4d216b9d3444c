"""The agent loop: stream the model, run the tools it asks for, feed the results back, repeat.

``Agent.run(prompt)`` is an async generator of ``AgentEvent``s; the UI, ``--print`` and ``--json`` are three
consumers of it. History stays valid whatever happens: every tool call gets a result (a synthetic one when
aborted or skipped) and an interrupted answer is kept with stop reason ``aborted``. An answer that broke off
is kept with stop reason ``error``, never sent back to the model (``replay.py``), and asked for again when the
provider's retry policy allows; a model stuck on failing calls is stopped (``guards.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncGenerator, Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Protocol

from navtui.agent.budget import ContextBudget
from navtui.agent.guards import REPEATED_RESULT, RESAMPLE_TEMPERATURE, RunawayGuard
from navtui.agent.hooks import AgentHooks, Nudge
from navtui.agent.replay import replay_messages
from navtui.agent.window import output_limit
from navtui.core.context_messages import ContextMessages
from navtui.core.errors import NavtuiError, ToolError
from navtui.core.events import (
    AgentError,
    AgentEvent,
    ErrorEvent,
    Notice,
    RunFinished,
    StopEvent,
    StreamFinished,
    TextDelta,
    ThinkingDelta,
    ToolCallEvent,
    ToolCallFinished,
    ToolCallStarted,
    ToolOutput,
    TurnFinished,
    TurnStarted,
    UsageEvent,
    UsageUpdate,
    UserMessageEvent,
    join_deltas,
)
from navtui.core.messages import (
    MAX_NESTING,
    AssistantMessage,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    nests_deeper,
)
from navtui.core.wording import counted
from navtui.providers.base import PARSE_ERROR_KEY, AnyMessage, ChatRequest, Provider
from navtui.tools.approval import ApprovalPolicy, Approver, DenyingApprover, denial_message
from navtui.tools.authorize import authorize
from navtui.tools.base import ToolContext, ToolRegistry
from navtui.tools.shell.output import keep_long_result

ABORTED_RESULT = "Aborted by the user before this tool ran to completion."
KEPT_OUTPUT_CHARS = 1_000_000  # of an aborted tool's output, the tail kept for its result (then cut as any result)
SKIPPED_RESULT = "Skipped: the turn was interrupted before this tool ran."


class Recorder(Protocol):
    """Where the agent writes history (the session manager implements it)."""

    def append_message(self, message: Any) -> str: ...

    def sync(self) -> None: ...


class _StreamedText:
    """The streamed text of the block being written, kept as pieces and joined into the block when anything
    else happens (``settle``): adding each delta to the block's string would copy the whole answer each time."""

    def __init__(self) -> None:
        self._block: TextBlock | ThinkingBlock | None = None
        self._pieces: list[str] = []

    def add(self, block: TextBlock | ThinkingBlock, text: str) -> None:
        if block is not self._block:
            self.settle()
            self._block = block
        self._pieces.append(text)

    def settle(self) -> None:
        block, joined = self._block, "".join(self._pieces)
        self._block, self._pieces = None, []
        if isinstance(block, TextBlock):
            block.text += joined
        elif isinstance(block, ThinkingBlock):
            block.thinking += joined


class Agent:
    def __init__(
        self,
        provider: Provider,
        tools: ToolRegistry,
        ctx: ToolContext,
        *,
        system_prompt: str,
        messages: Sequence[AnyMessage] | None = None,
        policy: ApprovalPolicy | None = None,
        approver: Approver | None = None,
        max_turns: int = 100,
        recorder: Recorder | None = None,
        context_window: int | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        think: bool | str | None = None,
        hooks: AgentHooks[Agent] | None = None,
    ) -> None:
        self.provider = provider
        self.tools = tools
        self.ctx = ctx
        self.system_prompt = system_prompt
        # A resumed session's older messages may stay in its lines until the first request (ContextMessages).
        self.messages: list[AnyMessage] | ContextMessages = (
            messages.copy() if isinstance(messages, ContextMessages) else list(messages or [])
        )
        self.policy = policy or ApprovalPolicy()
        self.approver: Approver = approver or DenyingApprover()
        self.max_turns = max_turns
        self.recorder = recorder
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.think = think
        self.budget = ContextBudget(context_window)
        self.compact = False  # small window: core tools, short prompts (agent/window.py)
        self.files_tokens = 0  # the files in play the latest request showed whole (the edits protocol)
        self.check_note: str | None = None  # how this run's check ended (agent/check.py), said after the answer
        self.resample = False  # the latest reply repeated an earlier one: sample the next one (agent/guards.py)
        self.hooks: AgentHooks[Agent] = hooks or AgentHooks()
        self.usage_total = Usage()
        self._abort = asyncio.Event()
        self._steering: list[str] = []
        self._running = False
        self._unrecorded: AssistantMessage | None = None
        self._streamed = _StreamedText()  # the text of the answer being streamed, not yet in its block
        self._call_ids: set[str] = set()  # every tool-call id in the history (see _with_unique_id)
        self._invalid_calls: set[str] = set()  # calls of this turn that could not run at all (for the guard)
        self._results: dict[str, ToolResultMessage] = {}  # this turn's results by call id
        self.last_error: ErrorEvent | None = None  # the provider's last error, with its kind (e.g. "overflow")

    # ------------------------------------------------------------------ control
    @property
    def running(self) -> bool:
        return self._running

    def abort(self) -> None:
        """Stop the running turn at the next await: partial text is kept, pending tools get results."""
        self._abort.set()

    def request_system_prompt(self) -> str:
        """The system prompt the next request sends (the hooks may shape it)."""
        return self.hooks.system_prompt(self)

    def steer(self, text: str) -> None:
        """Queue a user-role message injected before the next model request (remaining tools are skipped)."""
        self._steering.append(text)

    def add_message(self, message: AnyMessage) -> None:
        self.messages.append(message)
        if self.recorder is not None:
            self.recorder.append_message(message)

    def request(self) -> ChatRequest:
        """The next request; its output limit is capped so the prompt and the answer fit the window."""
        files = self.hooks.files_in_play(self)
        if not files:
            self.files_tokens = 0
        if isinstance(self.messages, ContextMessages):
            self.messages.hold()  # what is sent is held from now on (the compaction before had its chance)
        return ChatRequest(
            system=self.request_system_prompt(),
            messages=replay_messages(self.messages),
            tools=self.tools.specs(),
            max_tokens=output_limit(self.budget.window, self.budget.estimate(self), self.max_tokens),
            temperature=self._temperature(),
            think=self.think,
            compact=self.compact,
            files=files,
        )

    def _temperature(self) -> float | None:
        if self.resample and (self.temperature is None or self.temperature < RESAMPLE_TEMPERATURE):
            return RESAMPLE_TEMPERATURE
        return self.temperature

    # ------------------------------------------------------------------ the loop
    async def run(self, prompt: str | UserMessage | None, *, aborted: bool = False) -> AsyncGenerator[AgentEvent, None]:
        """Run until the model stops. ``None`` continues from the current history (after a resume).

        ``aborted``: Esc came while the run was being prepared (the runtime's start): it ends at its first turn."""
        if self._running:
            raise NavtuiError("The agent is already running", hint="wait for the turn to finish or press Esc")
        self._running = True
        if aborted:
            self._abort.set()
        else:
            self._abort.clear()
        turn = 0
        stop_reason: StopReason = "stop"
        final_text = ""
        guard = RunawayGuard()
        broken = 0  # answers that broke off in a row (asked again within the retry policy)
        self.check_note = None
        self.resample = False
        try:
            if prompt is not None:
                message = prompt if isinstance(prompt, UserMessage) else UserMessage(content=prompt)
                self.add_message(message)
                yield UserMessageEvent(text=message.text)
            self.hooks.start_run(self, None if prompt is None else message.text)
            while True:
                if turn >= self.max_turns:
                    stop_reason = "length"
                    yield AgentError(
                        message=f"Stopped after {counted(self.max_turns, 'turn')} (max_turns) with the task unfinished.",
                        hint="send another prompt to go on, or raise max_turns in settings",
                    )
                    break
                try:
                    async for event in self.hooks.before_request(self):
                        yield event
                except NavtuiError as exc:  # e.g. the window cannot hold the system prompt: nothing to send
                    stop_reason = "error"
                    yield AgentError(message=exc.message, hint=exc.hint)
                    break
                for text in self._take_steering():
                    yield UserMessageEvent(text=text, kind="steer")
                turn += 1
                yield TurnStarted(turn=turn, model=self.provider.model)
                assistant = AssistantMessage(provider=self.provider.name, model=self.provider.model)
                self._unrecorded = assistant
                async with contextlib.aclosing(self._stream_turn(assistant)) as streamed:
                    async for event in streamed:
                        yield event
                # Said before the answer is recorded and measured, so a screen shows its end first (an abort
                # here still records it: _repair_history takes the unrecorded answer).
                yield StreamFinished(turn=turn, stop_reason=assistant.stop_reason)
                self._unrecorded = None
                self.add_message(assistant)
                self.resample = assistant.stop_reason not in ("error", "aborted") and guard.said_before(assistant)
                if self.resample:
                    yield Notice(
                        text=f"The model repeated an earlier answer word for word; the next request samples at "
                        f"temperature {self._temperature()} for a different one.",
                        level="info",
                    )
                if assistant.usage is not None:
                    yield self._usage_update(assistant.usage)
                    truncated = self.budget.truncation_warning(assistant.usage)
                    if truncated is not None:
                        yield Notice(text=truncated, level="warning")
                final_text = assistant.text or final_text
                calls = assistant.tool_calls if assistant.stop_reason not in ("error", "aborted") else []
                if assistant.stop_reason in ("error", "aborted"):
                    # Calls that streamed before the failure still need results for a valid history.
                    for call in assistant.tool_calls:
                        self.add_message(ToolResultMessage.of(call, ABORTED_RESULT, is_error=True))
                if calls:
                    async for event in self._run_tools(calls, guard.repeated(calls)):
                        yield event
                stuck = guard.after_tools(calls, self._results, self._invalid_calls)
                yield TurnFinished(turn=turn, stop_reason=assistant.stop_reason, message=assistant)
                warning = self._sync_recorder()
                if warning is not None:
                    yield warning
                if self._abort.is_set():
                    stop_reason = "aborted"
                    break
                if assistant.stop_reason == "error":
                    if await self.hooks.retry_after_error(self, assistant):
                        continue  # e.g. the context overflowed: the hook compacts, the request is tried again
                    notice = self._retry_notice(broken)
                    if notice is not None:
                        broken += 1
                        yield notice
                        if await self._pause(self.provider.retry.delay(broken - 1)):
                            continue
                        stop_reason = "aborted"
                        break
                    stop_reason = "error"
                    yield AgentError(message=assistant.error_message or "The model request failed")
                    break
                broken = 0
                if stuck is not None:
                    stop_reason = "error" if isinstance(stuck, AgentError) else "stop"
                    yield stuck
                    break
                if calls or self._steering:
                    continue
                nudge = await self.hooks.after_final_answer(self, assistant)
                if nudge is None:  # the work is checked (agent/check.py): a failure asks the model again
                    async for item in self.hooks.verify(self, assistant):
                        if isinstance(item, Nudge):
                            nudge = item
                        else:
                            yield item
                    if self._abort.is_set():
                        stop_reason = "aborted"
                        break
                if nudge is not None:
                    yield Notice(text=nudge.notice, level="info")
                    self.add_message(UserMessage(content=nudge.message))
                    yield UserMessageEvent(text=nudge.message, kind="nudge")
                    continue
                stop_reason = assistant.stop_reason
                break
        finally:
            self._running = False
            self._repair_history()
            self._sync_recorder()
        if self.check_note and stop_reason != "aborted":
            final_text = f"{final_text.rstrip()}\n\n{self.check_note}" if final_text.strip() else self.check_note
        yield RunFinished(stop_reason=stop_reason, turns=turn, text=final_text)

    def _retry_notice(self, broken: int) -> Notice | None:
        """After an answer that broke off: a notice when it is worth asking again, else None."""
        error = self.last_error
        if error is None or not error.retryable or broken >= self.provider.retry.retries_for(error.kind):
            return None
        return Notice(
            text=f"The answer broke off ({error.message}); asking again (attempt {broken + 1}/"
            f"{self.provider.retry.retries_for(error.kind)}). The partial answer is kept in the session but not "
            "sent back to the model.",
            level="warning",
        )

    async def _pause(self, seconds: float) -> bool:
        """Wait before asking again; False when the user interrupted meanwhile."""
        waiting = asyncio.ensure_future(self.provider.retry.sleep(seconds))
        abort_wait = asyncio.create_task(self._abort.wait())
        try:
            await asyncio.wait({waiting, abort_wait}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiting.cancel()
            abort_wait.cancel()
        return not self._abort.is_set()

    def _sync_recorder(self) -> Notice | None:
        """fsync the session at a turn end. A failing disk is reported, never fatal: entries stay in memory."""
        if self.recorder is None:
            return None
        try:
            self.recorder.sync()
        except NavtuiError as exc:
            return Notice(text=f"The session could not be saved: {exc}", level="error")
        except OSError as exc:
            return Notice(text=f"The session could not be saved: {exc.strerror or exc}", level="error")
        return None

    def _repair_history(self) -> None:
        """After a torn-down run: keep the interrupted answer and answer every dangling tool call."""
        self._streamed.settle()
        if self._unrecorded is not None:
            self._unrecorded.stop_reason = "aborted"
            self.add_message(self._unrecorded)
            self._unrecorded = None
        answered = {m.tool_call_id for m in self.messages if isinstance(m, ToolResultMessage)}
        for message in reversed(self.messages):
            if isinstance(message, AssistantMessage):
                for call in message.tool_calls:
                    if call.id not in answered:
                        self.add_message(ToolResultMessage.of(call, ABORTED_RESULT, is_error=True))
                break

    # ------------------------------------------------------------------ streaming
    async def _stream_turn(self, assistant: AssistantMessage) -> AsyncGenerator[AgentEvent, None]:
        """Consume the provider in an inner task so ``abort()`` can stop it at once."""
        queue: asyncio.Queue[Any] = asyncio.Queue()
        done = object()
        request = self.request()

        async def pump() -> None:
            try:
                async with contextlib.aclosing(self.provider.stream(request)) as stream:
                    async for event in stream:
                        queue.put_nowait(event)
            except NavtuiError as exc:
                queue.put_nowait(ErrorEvent(message=exc.message, hint=exc.hint))
            except Exception as exc:  # a provider bug must not kill the loop; keep the partial text
                queue.put_nowait(ErrorEvent(message=f"{type(exc).__name__}: {exc}", kind="internal"))
            finally:
                queue.put_nowait(done)

        task = asyncio.create_task(pump())
        abort_wait = asyncio.create_task(self._abort.wait())
        self._call_ids = {c.id for m in self.messages if isinstance(m, AssistantMessage) for c in m.tool_calls}
        try:
            while True:
                if self._abort.is_set():
                    assistant.stop_reason = "aborted"
                    break
                if queue.empty():
                    getter = asyncio.create_task(queue.get())
                    finished, _ = await asyncio.wait({getter, abort_wait}, return_when=asyncio.FIRST_COMPLETED)
                    if getter not in finished:
                        getter.cancel()
                        assistant.stop_reason = "aborted"
                        break
                    batch = [getter.result()]
                else:
                    batch = [queue.get_nowait()]
                while not queue.empty():  # what arrived meanwhile: its deltas reach the screen as one
                    batch.append(queue.get_nowait())
                ended = batch[-1] is done
                for event in join_deltas(batch[:-1] if ended else batch):
                    for out in self._apply(assistant, event):
                        yield out
                if ended:
                    break
        finally:
            self._streamed.settle()
            abort_wait.cancel()
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if assistant.stop_reason != "aborted" and assistant.tool_calls and assistant.stop_reason == "stop":
            assistant.stop_reason = "tool_use"

    def _apply(self, assistant: AssistantMessage, event: Any) -> list[Any]:
        blocks = assistant.content
        streamed = self._streamed
        if isinstance(event, TextDelta):
            block = blocks[-1] if blocks else None
            if not isinstance(block, TextBlock):
                block = TextBlock(text="")
                blocks.append(block)
            streamed.add(block, event.text)
            return [event]
        if isinstance(event, ThinkingDelta):
            last = blocks[-1] if blocks else None
            if isinstance(last, ThinkingBlock) and last.thinking_signature is None and not event.redacted:
                streamed.add(last, event.text)
                if event.signature:
                    last.thinking_signature = event.signature
            else:
                thinking = ThinkingBlock(thinking="", thinking_signature=event.signature, redacted=event.redacted)
                blocks.append(thinking)
                streamed.add(thinking, event.text)
            return [event] if event.text else []
        streamed.settle()
        if isinstance(event, ToolCallEvent):
            blocks.append(self._with_unique_id(_savable(event.call)))
            return []
        if isinstance(event, UsageEvent):
            assistant.usage = event.usage if assistant.usage is None else assistant.usage + event.usage
            return []
        if isinstance(event, StopEvent):
            assistant.stop_reason = event.reason
            return []
        if isinstance(event, ErrorEvent):
            self.last_error = event
            assistant.stop_reason = "error"
            assistant.error_message = event.message + (f" ({event.hint})" if event.hint else "")
            return []
        return [event]  # provider notices pass through

    def _with_unique_id(self, call: ToolCall) -> ToolCall:
        """The call with an id no other call in the history has (providers reject empty or repeated ids).

        Models and servers send empty ids, repeat one id for two calls, or restart their numbering in a resumed
        session; the call's result is made from the returned call, so the pairing holds.
        """
        if call.id and call.id not in self._call_ids:
            self._call_ids.add(call.id)
            return call
        fresh = f"call_{secrets.token_hex(6)}"
        while fresh in self._call_ids:
            fresh = f"call_{secrets.token_hex(6)}"
        self._call_ids.add(fresh)
        return call.model_copy(update={"id": fresh})

    def _usage_update(self, usage: Usage) -> UsageUpdate:
        self.usage_total = self.usage_total + usage
        self.budget.observe(usage, self)
        return UsageUpdate(
            usage=usage,
            total=self.usage_total,
            context_tokens=self.budget.estimate(self),
            context_window=self.budget.window,
        )

    # ------------------------------------------------------------------ tools
    @staticmethod
    def _is_parse_error(call: ToolCall) -> bool:
        return PARSE_ERROR_KEY in call.arguments

    async def _run_tools(
        self, calls: list[ToolCall], again: AbstractSet[str] = frozenset()
    ) -> AsyncGenerator[AgentEvent, None]:
        """Run ``calls`` in order; those in ``again`` (a repeat of the previous, successful step) are not run."""
        self._results = {}
        self.ctx.offered = frozenset(self.tools.names())
        self._invalid_calls = set()
        for index, call in enumerate(calls):
            if self._abort.is_set() or self._steering:
                text = ABORTED_RESULT if self._abort.is_set() else SKIPPED_RESULT
                for rest in calls[index:]:
                    result = ToolResultMessage.of(rest, text, is_error=True)
                    self.add_message(result)
                    yield ToolCallFinished(call=rest, result=result)
                return
            yield ToolCallStarted(call=call)
            self.ctx.later_writes = frozenset(
                str(later.arguments["path"])
                for later in calls[index + 1 :]
                if later.name in ("write", "edit") and isinstance(later.arguments.get("path"), str)
            )
            intercepted = None if call.id in again else await self.hooks.intercept_tool(self, call)
            if call.id in again:
                result = ToolResultMessage.of(call, REPEATED_RESULT)
            elif intercepted is not None:
                result = intercepted
            else:
                ran: ToolResultMessage | None = None
                async for item in self._run_one(call):
                    if isinstance(item, ToolResultMessage):
                        ran = item
                    else:
                        yield item
                assert ran is not None, "_run_one always ends with the result"
                result = ran
            self._results[call.id] = result
            self.add_message(result)
            yield ToolCallFinished(call=call, result=result)
            async for event in self.hooks.after_tool(self, call, result):
                yield event

    def _aborted_text(self, call: ToolCall, shown: list[str]) -> str:
        """ABORTED_RESULT, with the output the call had printed when it was stopped (cut as any long result)."""
        output = "".join(shown)[-KEPT_OUTPUT_CHARS:].rstrip()
        if not output:
            return ABORTED_RESULT
        return keep_long_result(f"{ABORTED_RESULT} Its output so far:\n{output}", self.ctx.artifacts_dir, call.id)

    def run_tool(self, call: ToolCall) -> AsyncGenerator[ToolOutput | ToolResultMessage, None]:
        """Run one call outside the model's turn (the check): approval and sandbox as always; output, then result."""
        return self._run_one(call)

    async def _run_one(self, call: ToolCall) -> AsyncGenerator[ToolOutput | ToolResultMessage, None]:
        """Yield ToolOutput events while the tool runs, then its ToolResultMessage."""
        if self._is_parse_error(call):
            self._invalid_calls.add(call.id)
            yield ToolResultMessage.of(call, str(call.arguments[PARSE_ERROR_KEY]), is_error=True)
            return
        tool = self.tools.get(call.name)
        if tool is None:
            self._invalid_calls.add(call.id)
            reason = self.tools.unavailable(call.name)  # a known tool whose server is down says so
            names = ", ".join(self.tools.names())
            text = reason or f"Unknown tool '{call.name}'. Available tools: {names}."
            yield ToolResultMessage.of(call, text, is_error=True)
            return
        try:
            args = tool.parse_args(call.arguments)
        except ToolError as exc:
            self._invalid_calls.add(call.id)
            yield ToolResultMessage.of(call, exc.message, is_error=True)
            return
        denial = await self._authorize(tool, args, call)
        if denial is not None:
            yield ToolResultMessage.of(call, denial, is_error=True)
            return

        outputs: asyncio.Queue[str] = asyncio.Queue()
        previous_sink: Callable[[str], None] = self.ctx.on_output
        self.ctx.on_output = outputs.put_nowait
        task = asyncio.create_task(tool.run(args, self.ctx))
        abort_wait = asyncio.create_task(self._abort.wait())
        shown: list[str] = []  # the output so far: an aborted call keeps it (Esc on a long command)
        try:
            while not task.done():
                getter = asyncio.create_task(outputs.get())
                finished, _ = await asyncio.wait({task, getter, abort_wait}, return_when=asyncio.FIRST_COMPLETED)
                if getter in finished:
                    shown.append(getter.result())
                    yield ToolOutput(call_id=call.id, text=shown[-1])
                else:
                    getter.cancel()
                if abort_wait in finished and not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
                    while not outputs.empty():
                        shown.append(outputs.get_nowait())
                    yield ToolResultMessage.of(call, self._aborted_text(call, shown), is_error=True)
                    return
            while not outputs.empty():
                yield ToolOutput(call_id=call.id, text=outputs.get_nowait())
        finally:
            self.ctx.on_output = previous_sink
            abort_wait.cancel()
            if not task.done():
                task.cancel()
        try:
            outcome = task.result()
        except ToolError as exc:
            yield ToolResultMessage.of(call, str(exc), is_error=True)
            return
        except Exception as exc:  # a tool bug becomes an error result, never a crashed loop
            yield ToolResultMessage.of(call, f"{call.name} failed: {type(exc).__name__}: {exc}", is_error=True)
            return
        text = keep_long_result(outcome.text, self.ctx.artifacts_dir, call.id)
        result = ToolResultMessage.of(call, text, is_error=outcome.is_error)
        result.content.extend(outcome.images)
        result.details = outcome.details
        yield result

    async def _authorize(self, tool: Any, args: Any, call: ToolCall) -> str | None:
        """None when the call may run, else the text of the refusal for the model."""
        response = await authorize(tool, args, self.ctx, self.policy, self.approver, call)
        if response is None or response.approved:
            return None
        return denial_message(tool.name, response)

    def _take_steering(self) -> list[str]:
        taken, self._steering = self._steering, []
        for text in taken:
            self.add_message(UserMessage(content=text))
        return taken


def _savable(call: ToolCall) -> ToolCall:
    """The call, or a malformed one when its arguments nest too deep to save or send again (the model is told)."""
    if not nests_deeper(call.arguments):
        return call
    why = (
        f"The arguments of your {call.name} call nest deeper than {MAX_NESTING} levels, which no tool takes: "
        "call it again with its arguments as the tool's schema gives them"
    )
    return call.model_copy(update={"arguments": {PARSE_ERROR_KEY: why}})
