"""Background shell jobs (placeholder registry; the shell tool fills it in)."""

from __future__ import annotations


class JobRegistry:
    def __init__(self) -> None:
        self.jobs: dict[str, object] = {}

    async def kill_all(self) -> None:
        self.jobs.clear()
