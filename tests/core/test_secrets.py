"""Secrets are masked in errors, notices and session lines; code that only names a secret is left alone."""

from __future__ import annotations

import pytest

from navtui.core.errors import ProviderError, ToolError
from navtui.core.events import AgentError, ErrorEvent, Notice
from navtui.core.secrets import MASK, env_secrets, mask_secrets

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

MASKED = {
    "DB_PASSWORD=hunter2secret": "DB_PASSWORD=****",
    "export API_TOKEN='abc123def456'": "export API_TOKEN=****",
    f"aws_secret_access_key = {AWS_SECRET}": "aws_secret_access_key = ****",
    f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}": "AWS_SECRET_ACCESS_KEY=****",
    f'{{"SecretAccessKey": "{AWS_SECRET}"}}': '{"SecretAccessKey": "****"}',
    "postgres://admin:s3cr3t@db.example.com:5432/app": "postgres://admin:****@db.example.com:5432/app",
    "git clone https://bot:ghx_tok3n@git.example.com/a.git": "git clone https://bot:****@git.example.com/a.git",
    'password = "hunter2"': 'password = "****"',
    '"client_secret": "abc-123-xyz"': '"client_secret": "****"',
    "mysql --password=hunter2 -u root": "mysql --password=**** -u root",
    "GET /cb?access_token=abcdef123&x=1": "GET /cb?access_token=****&x=1",
    "password: hunter2!": "password: ****",
    "Authorization: Basic dXNlcjpwYXNzd29yZA==": "Authorization: Basic ****",
}
UNTOUCHED = [
    "password: str",
    "connect(user=user, password=password)",
    "SECRET_KEY = os.environ['SECRET_KEY']",
    "API_KEY=$OPENAI_API_KEY",
    "max_tokens = 4096",
    'token_type: "bearer"',
    "def get_token(self) -> str:",
    'tokenizer = "gpt2"',
    "git clone https://github.com/a/b.git",
    "password_hash = hash(password)",
    "the basic functionality works",
]


@pytest.mark.parametrize(("text", "masked"), MASKED.items())
def test_secrets_in_files_and_commands_are_masked(text: str, masked: str) -> None:
    assert mask_secrets(text, ()) == masked


@pytest.mark.parametrize("text", UNTOUCHED)
def test_code_that_only_names_a_secret_is_left_alone(text: str) -> None:
    assert mask_secrets(text, ()) == text


def test_known_values_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NAVTUI_API_KEY", "plain-looking-value-91")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Jane Developer")  # AUTHOR is not AUTH
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    assert "plain-looking-value-91" in env_secrets() and "Jane Developer" not in env_secrets()
    assert "false" not in env_secrets()
    assert mask_secrets("key plain-looking-value-91 by Jane Developer") == f"key {MASK} by Jane Developer"


def test_errors_and_events_mask_on_creation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "custom-gateway-key-5d41402a")
    quoted = "HTTP 401: invalid x-api-key custom-gateway-key-5d41402a"
    error = ProviderError(quoted, kind="auth", hint="check custom-gateway-key-5d41402a")
    assert "5d41402a" not in str(error) and MASK in error.message and MASK in (error.hint or "")
    for event in (AgentError(message=quoted, hint=quoted), ErrorEvent(message=quoted, hint=quoted)):
        assert "5d41402a" not in event.model_dump_json()
    assert "5d41402a" not in Notice(text=quoted).text
    # A tool error quotes the model's own files back to it: masking it would have the model edit "****".
    assert "5d41402a" in ToolError(quoted).message
