"""Run a fake Ollama server with scripted replies, to try navtui by hand (or in tmux) without a model.

    python bench/fake_server_cli.py            # prints the URL and the navtui command to run
    navtui -p ollama -b http://127.0.0.1:PORT -m qwen2.5-coder:7b

Each prompt takes the next reply: a long streamed Markdown answer, a tool call that reads a file then an
answer, an edit of ``demo.py`` (create it first) then an answer; after that every prompt streams the long
answer again. ``--scenario sandbox`` instead runs a command the sandbox blocks (a write to ``~``), then a
background job (``sleep``) to try ``kill -9`` on navtui with. ``--scenario faults`` shows what navtui does when
the model or the server misbehaves, one prompt each: an answer that breaks off (asked again), a model silent for
8 s (the status line counts), a model calling a tool that does not exist (the run stops after 3), a tool call
the server could not parse (HTTP 500, asked again then handed to the model). ``--scenario edits`` answers in
the edit-block protocol (``providers.tool_protocol: edits``): a whole ``demo.py`` and a ``bash`` block;
``--scenario stuck`` a model that claims a file it never wrote, to see navtui start its next reply.
``--scenario checkpoints``: two turns that change files by shell (an edit, a new folder, a mode bit, a
rename) to try ``/undo``, Esc Esc and ``/branch`` with (start navtui where ``demo.py`` exists, ``--approval
yolo``). ``--cold 5`` starts the model out of memory
(loading it takes 5 s); ``/models pull smollm2:135m`` downloads a model with progress. Ctrl+C stops the server.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import make_markdown  # noqa: E402
from tests.fakes import Drop, FakeServer, HttpError, Stall, Text, ToolCall, Usage  # noqa: E402
from tests.fakes.script import split_text  # noqa: E402

MODEL = "qwen2.5-coder:7b"


def long_answer(server: FakeServer, tokens: int, rate: float) -> None:
    text = "Here is a long answer to scroll through.\n\n" + make_markdown(tokens * 4, seed=7)
    server.script_stream(text, tokens_per_second=rate, model=None)


def script(server: FakeServer, tokens: int, rate: float) -> None:
    long_answer(server, tokens, rate)
    server.script(
        Text("Let me look at the file first."), ToolCall("read", {"path": "demo.py"}), Usage(input=900, output=40)
    )
    server.script(
        *(
            Text(chunk, delay=1 / rate)
            for chunk in split_text("It defines `add`, which **subtracts**. I will fix it.", 4)
        ),
        ToolCall("edit", {"path": "demo.py", "old_text": "return a - b", "new_text": "return a + b"}),
        Usage(input=1400, output=60),
    )
    server.script(Text("Fixed: `add` now returns `a + b`."), Usage(input=1500, output=12))


def sandbox_script(server: FakeServer) -> None:
    demo = "~/navtui-sandbox-demo.txt"
    server.script(Text("Writing a note in your home folder."), ToolCall("shell", {"command": f"echo hi > {demo}"}))
    server.script(Text(f"Done (check {demo})."))
    server.script(
        Text("Starting a background job."),
        ToolCall("shell", {"command": "sleep 600 & sleep 600", "wait_ms": 1000}),
    )
    server.script(Text("It keeps running in the background."))


def faults_script(server: FakeServer) -> None:
    server.script(Text("The answer starts, "), Text("goes on for a while "), Text("and then"), Drop())
    server.script(Text("Asked again, the whole answer arrives this time."))
    server.script(Stall(8, resume=True), Text("Sorry for the wait: the prompt was long."))
    for _ in range(3):
        server.script(Text("Let me frobnicate."), ToolCall("frobnicate", {"level": 11}))
    for _ in range(2):
        server.script(HttpError(500, "error parsing tool call: raw='{\"path\":'"))
    server.script(Text("My call was broken; here is the answer without it."))


def edits_script(server: FakeServer, rate: float) -> None:
    """Replies in the edit-block protocol (set providers.tool_protocol to edits): as Qwen2.5-Coder 1.5B writes them."""
    reply = (
        "The bug is in `add`: it subtracts instead of adding.\n\ndemo.py\n```python\ndef add(a, b):\n"
        "    return a + b\n\n\nprint(add(2, 3))\n```\n\nRun it:\n\n```bash\npython3 demo.py\n```\n"
    )
    server.script(*(Text(chunk, delay=1 / rate) for chunk in split_text(reply, 4)), Usage(input=420, output=60))
    server.script(
        Text("Fixed: `add` now returns `a + b`, and `python3 demo.py` prints 5."), Usage(input=520, output=20)
    )


def stuck_script(server: FakeServer) -> None:
    """The edit-block protocol with a model that claims instead of writing (Qwen2.5-Coder 1.5B's count_rows):
    ask "Count the data rows of data.csv and write the number into a new file count.txt"."""
    server.script(Text("The number of rows in data.csv is 17. This number has been written to count.txt."))
    server.script(Text("17\n```\n"))  # navtui starts this reply with "count.txt" and a fence; Ollama continues it
    server.script(Text("count.txt holds 17."))


def checkpoints_script(server: FakeServer) -> None:
    """Turns that change files, to try /undo, Esc Esc and /branch with: run navtui where demo.py exists."""
    server.script(
        Text("Fixing add and adding a test."),
        ToolCall(
            "shell",
            {
                "command": "sed -i 's/a - b/a + b/' demo.py && mkdir -p tests/unit && "
                "printf 'from demo import add\\nassert add(2, 3) == 5\\n' > tests/unit/test_demo.py && "
                "printf '#!/bin/sh\\npython3 -m pytest -q\\n' > check.sh && chmod +x check.sh"
            },
        ),
    )
    server.script(Text("Done: `add` adds, and `check.sh` runs the test."))
    server.script(Text("Renaming the module."), ToolCall("shell", {"command": "mv demo.py calc.py"}))
    server.script(Text("`demo.py` is now `calc.py`."))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=3000, help="length of the long answer (4-char tokens)")
    parser.add_argument("--rate", type=float, default=300, help="tokens per second")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--scenario", choices=["default", "sandbox", "faults", "edits", "stuck", "checkpoints"], default="default"
    )
    parser.add_argument(
        "--cold", type=float, metavar="SECONDS", help="the model starts out of memory; loading takes this long"
    )
    args = parser.parse_args()
    server = FakeServer(port=args.port).start()
    server.set_model(MODEL, context_length=32768, loaded=args.cold is None)
    server.set_model("llama3.2:3b", context_length=8192, loaded=False)
    server.load_delay = args.cold or 0.0
    server.set_pullable("smollm2:135m", size=270_000_000, steps=40, delay=0.1)  # /models pull smollm2:135m
    if args.scenario == "sandbox":
        sandbox_script(server)
    elif args.scenario == "faults":
        faults_script(server)
    elif args.scenario == "edits":
        edits_script(server, args.rate)
    elif args.scenario == "stuck":
        stuck_script(server)
    elif args.scenario == "checkpoints":
        checkpoints_script(server)
    else:
        script(server, args.tokens, args.rate)
    print(server.url, flush=True)
    print(f"navtui -p ollama -b {server.url} -m {MODEL}", flush=True)

    def refill() -> None:  # keep a long answer queued for every later prompt
        while True:
            if server.pending() == 0:
                long_answer(server, args.tokens, args.rate)
            time.sleep(0.2)

    threading.Thread(target=refill, daemon=True).start()
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
