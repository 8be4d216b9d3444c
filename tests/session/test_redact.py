"""Secrets never reach the session file; the running conversation keeps what was typed."""

from __future__ import annotations

import json

import pytest

from navtui.core.messages import AssistantMessage, TextBlock, ThinkingBlock, ToolCall
from navtui.core.secrets import MASK, mask_secrets
from navtui.session.manager import SessionManager
from navtui.session.redact import mask_value
from tests.session.helpers import result, user

SECRETS = {
    "anthropic": "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 3,
    "openai": "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm" * 2,
    "github": "ghp_" + "a" * 36,
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "slack": "xoxb-123456789012-abcdefghij",
    "google": "AIza" + "B" * 35,
    "bearer": "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc",
}


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_known_key_shapes_are_masked(kind: str) -> None:
    secret = SECRETS[kind]
    masked = mask_secrets(f"before {secret} after", ())
    assert MASK in masked and masked.startswith("before ") and masked.endswith(" after")
    core = secret.split()[-1]
    assert core not in masked


def test_private_key_blocks_are_masked() -> None:
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----"
    assert "MIIEpAIBAAKCAQEA" not in mask_secrets(f"key:\n{pem}\n", ())


def test_ordinary_text_is_untouched() -> None:
    text = "task-runner sk-short ask-me AKIA lowercase akia1234 Bearer token; risk-assessment-documentation-update"
    assert mask_secrets(text, ()) == text


def test_secret_environment_values_are_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "p4ssw0rd-that-has-no-known-shape")
    monkeypatch.setenv("HOME_DIR_PATH", "p4ssw0rd-that-has-no-known-shape-too")
    assert mask_secrets("use p4ssw0rd-that-has-no-known-shape now") == f"use {MASK} now"


def test_opaque_fields_are_not_touched() -> None:
    value = {
        "type": "thinking",
        "thinking": "the key is " + SECRETS["github"],
        "thinkingSignature": "sk-" + "x" * 40,
    }
    masked = mask_value(value, ())
    assert masked["thinkingSignature"] == value["thinkingSignature"]
    assert SECRETS["github"] not in masked["thinking"]


def test_secrets_are_masked_on_disk_but_kept_in_memory(session: SessionManager) -> None:
    key = SECRETS["anthropic"]
    prompt_id = session.append_message(user(f"set ANTHROPIC_API_KEY={key}"))
    session.append_message(
        AssistantMessage(
            content=[
                ThinkingBlock(thinking=f"I will write {key}", thinking_signature="c2lnbmF0dXJl"),
                ToolCall(id="c1", name="write", arguments={"path": ".env", "content": f"KEY={key}\n"}),
            ]
        )
    )
    session.append_message(result("c1", f"wrote KEY={key}"))
    session.append_custom_message("advisor", f"do not commit {key}")
    assert key not in session.path.read_text()
    assert session.get_entry(prompt_id).message.text.endswith(key)  # type: ignore[union-attr]
    reopened = SessionManager.open(session.path)
    texts = [str(entry.to_json()) for entry in reopened.entries]
    assert all(key not in text for text in texts)
    assert "c2lnbmF0dXJl" in session.path.read_text()


def test_secrets_read_from_files_are_masked_on_disk(session: SessionManager) -> None:
    aws = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    env_file = (
        f"     1\tDB_PASSWORD=correct-horse-battery\n     2\tAWS_SECRET_ACCESS_KEY={aws}\n"
        "     3\tDATABASE_URL=postgres://app:s3cr3t-pw@db:5432/app\n     4\tDEBUG=true\n"
    )
    session.append_message(user("read .env"))
    session.append_message(AssistantMessage(content=[ToolCall(id="c1", name="read", arguments={"path": ".env"})]))
    session.append_message(result("c1", env_file))
    stored = session.path.read_text()
    for secret in ("correct-horse-battery", aws, "s3cr3t-pw"):
        assert secret not in stored
    assert "DEBUG=true" in stored and "postgres://app:****@db:5432/app" in stored


def test_a_secret_on_a_line_of_its_own_is_masked_on_disk(session: SessionManager) -> None:
    # The name-based patterns look at a line's start; inside an entry's encoded line a message's lines are not
    # lines, so an answer whose only secret was such a line went to the file as it was.
    answer = "Put this in .env:\nDB_PASSWORD=correct-horse-battery\nand in config.yaml:\npassword: tr0ub4dor&3\n"
    entry_id = session.append_message(AssistantMessage(content=[TextBlock(text=answer)]))
    stored = session.path.read_text()
    assert "correct-horse-battery" not in stored and "tr0ub4dor&3" not in stored
    assert "DB_PASSWORD=****" in stored and "password: ****" in stored
    assert session.get_entry(entry_id).message.text == answer  # type: ignore[union-attr]


def test_an_entry_without_secrets_is_written_as_it_is(session: SessionManager) -> None:
    answer = "The token count is 12 and the key point is this:\n\npassword: str  # a type hint, no secret\n"
    session.append_message(AssistantMessage(content=[TextBlock(text=answer)]))
    stored = [line for line in session.path.read_text().splitlines() if '"assistant"' in line]
    assert len(stored) == 1 and json.loads(stored[0])["message"]["content"][0]["text"] == answer
