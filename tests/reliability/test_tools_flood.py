"""T05: 200 MB of command output costs disk, not memory: the peak RSS of a process running it barely moves.

The whole output is kept in a private artifact file; the model and the screen get its head and tail.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HOST = r"""
import asyncio, json, resource, sys
from pathlib import Path
from navtui.tools.registry import make_context
from navtui.tools.shell.shell import ShellTool

async def main() -> None:
    root = Path(sys.argv[1])
    ctx = make_context(root, None, root / "artifacts")
    streamed = 0
    def sink(text: str) -> None:
        nonlocal streamed
        streamed += len(text)
    ctx.on_output = sink
    tool = ShellTool()
    await tool.run(tool.parse_args({"command": "seq 1 1000 | tail -1"}), ctx)  # warm every code path
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = await tool.run(tool.parse_args({"command": "yes navtui | head -c 200000000; echo; echo last-line"}), ctx)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({
        "growth_kb": after - before,
        "text": result.text,
        "output_bytes": Path(result.details["output_path"]).stat().st_size,
        "output_mode": Path(result.details["output_path"]).stat().st_mode & 0o777,
        "streamed": streamed,
    }))

asyncio.run(main())
"""


def test_t05_200_mb_of_output_stays_within_64_mb_and_is_kept_in_a_private_file(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", HOST, str(tmp_path)], cwd=root, capture_output=True, text=True, timeout=120, check=True
    )
    report = json.loads(out.stdout)
    print(f"peak RSS growth for 200 MB of output: {report['growth_kb'] / 1024:.1f} MB")
    assert report["output_bytes"] == 200_000_000 + len("\nlast-line\n")
    assert report["output_mode"] == 0o600
    assert report["growth_kb"] < 64 * 1024
    text = report["text"]
    assert text.startswith("navtui\nnavtui\n") and "last-line\n[exit code 0" in text
    assert "omitted of 28571430 lines" in text and len(text) < 40_000
    assert report["streamed"] < 20_000_000  # the UI got a sample of the flood, not all of it
