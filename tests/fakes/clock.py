"""A fake clock for retry schedules: injected as a provider's ``RetryPolicy.sleep``, it records, never waits."""

from __future__ import annotations

import asyncio


class FakeClock:
    """``await clock.sleep(s)`` returns at once; ``clock.sleeps`` lists every wait asked for, ``now`` their sum."""

    def __init__(self) -> None:
        self.sleeps: list[float] = []
        self.now = 0.0

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)  # still a suspension point, as the real sleep is
