"""A resumed session goes back to the endpoint it used: the base URL is recorded with the model, and a pi/omp
custom provider name is looked up in their models.json. Run as real navtui processes against the fake server."""

from __future__ import annotations

import json
import os
from pathlib import Path

from navtui.config.paths import sessions_dir
from tests.fakes import Text
from tests.test_cli import MODEL, headless, navtui


def model_changes() -> list[dict[str, object]]:
    lines = [json.loads(line) for path in sessions_dir().rglob("*.jsonl") for line in path.read_text().splitlines()]
    return [line for line in lines if line.get("type") == "model_change"]


def test_continue_goes_back_to_the_recorded_endpoint_unless_flags_say_otherwise(fake_server, workspace: Path) -> None:
    fake_server.script(Text("first"))
    first = headless(fake_server, "--print", "hello", cwd=workspace)
    assert first.returncode == 0, first.stderr
    [change] = model_changes()
    assert (change["provider"], change["modelId"], change["baseUrl"]) == ("ollama", MODEL, fake_server.url)
    fake_server.script(Text("second"))
    again = navtui("-c", "--print", "and again", cwd=workspace)  # no -p, -b or -m: the session's endpoint
    assert again.returncode == 0, again.stderr
    assert again.stdout == "second\n" and len(fake_server.chat_requests) == 2
    assert len(model_changes()) == 1  # nothing changed, nothing recorded
    moved = navtui("-c", "--print", "elsewhere", "-b", "http://127.0.0.1:9", cwd=workspace)  # the flag wins
    assert moved.returncode != 0 and len(fake_server.chat_requests) == 2


def test_a_pi_custom_provider_name_maps_to_its_base_url(fake_server, workspace: Path) -> None:
    agent = Path(os.environ["PI_CODING_AGENT_DIR"])
    agent.mkdir(parents=True, exist_ok=True)
    url = fake_server.url + "/v1"
    (agent / "models.json").write_text(
        json.dumps({"providers": {"lab": {"baseUrl": url, "api": "openai-completions", "models": [{"id": "tiny"}]}}})
    )
    folder = agent / "sessions" / ("--" + str(workspace.resolve()).lstrip("/").replace("/", "-") + "--")
    folder.mkdir(parents=True)
    session = folder / "2026-01-01T00-00-00-000Z_pisession.jsonl"
    header = {"type": "session", "version": 3, "id": "pisession", "timestamp": "2026-01-01T00:00:00.000Z"}
    header["cwd"] = str(workspace.resolve())
    change = {"type": "model_change", "id": "0000aaaa", "parentId": None, "timestamp": "2026-01-01T00:00:01.000Z"}
    change |= {"provider": "lab", "modelId": "tiny"}
    session.write_text(json.dumps(header) + "\n" + json.dumps(change) + "\n")
    fake_server.script(Text("from the lab"))
    result = navtui("-r", "pisession", "--print", "hi", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "from the lab\n" and fake_server.chat_requests[0].path == "/v1/chat/completions"
    assert fake_server.chat_requests[0].json["model"] == "tiny"
    lines = [json.loads(line) for line in session.read_text().splitlines()]
    written = [line for line in lines if line.get("type") == "model_change"]
    # navtui records the server under pi's name for it, with the URL: pi resumes it, and so does navtui.
    assert [(line["provider"], line["modelId"], line.get("baseUrl")) for line in written] == [
        ("lab", "tiny", None),
        ("lab", "tiny", url),
    ]
