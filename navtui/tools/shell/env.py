"""The environment a command runs with: provider keys and other secrets removed, prompts disabled."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

# Always removed, whatever the passthrough list says: a command must never see the keys navtui talks with.
PROVIDER_KEYS = frozenset(
    {
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "OPENAI_API_KEY",
        "OPENAI_ORG_ID",
        "AZURE_OPENAI_API_KEY",
        "OPENROUTER_API_KEY",
        "NAVTUI_API_KEY",
        "OLLAMA_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GROQ_API_KEY",
        "MISTRAL_API_KEY",
        "DEEPSEEK_API_KEY",
        "TOGETHER_API_KEY",
        "FIREWORKS_API_KEY",
        "XAI_API_KEY",
        "COHERE_API_KEY",
        "PERPLEXITY_API_KEY",
        "CEREBRAS_API_KEY",
        "HF_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
    }
)

# Names shaped like a secret (``GITHUB_TOKEN``, ``DB_PASSWORD``, ``AWS_SECRET_ACCESS_KEY``...).
_SECRET_NAME = re.compile(
    r"(^|_)(API_?KEY|KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASS|CREDENTIALS?|PRIVATE_KEY|ACCESS_KEY)(_|$)",
    re.IGNORECASE,
)

# Unattended runs: no pager waiting for a key, no editor or credential prompt blocking a command.
HARDENING = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "MANPAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_EDITOR": "true",
    "TERM": "dumb",
    "NO_COLOR": "1",
}

JOB_MARKER = "NAVTUI_JOB_ID"


def is_secret_name(name: str) -> bool:
    if name in PROVIDER_KEYS:
        return True
    if name.startswith("NAVTUI_") and name != JOB_MARKER:
        return _SECRET_NAME.search(name[len("NAVTUI_") :]) is not None
    return _SECRET_NAME.search(name) is not None


def scrubbed_env(environ: Mapping[str, str], passthrough: Iterable[str] = ()) -> dict[str, str]:
    """A copy of ``environ`` without secrets; names in ``passthrough`` survive unless they are provider keys."""
    keep = set(passthrough) - PROVIDER_KEYS
    env = {name: value for name, value in environ.items() if name in keep or not is_secret_name(name)}
    env.update(HARDENING)
    return env
