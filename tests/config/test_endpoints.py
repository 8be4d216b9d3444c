"""Provider detection from model names and default endpoints."""

from __future__ import annotations

import pytest

from navtui.config.endpoints import detect_base_url, detect_provider, normalise_ollama_host


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ("claude-sonnet-4-5", "anthropic"),
        ("claude-3-5-haiku-latest", "anthropic"),
        ("qwen3:4b", "ollama"),
        ("qwen2.5-coder", "ollama"),
        ("llama3.2", "ollama"),
        ("mistral", "ollama"),
        ("gemma3:1b", "ollama"),
        ("phi4", "ollama"),
        ("deepseek-r1:8b", "ollama"),
        ("codellama:7b", "ollama"),
        ("gpt-oss:20b", "ollama"),  # an Ollama tag, although it starts with gpt-
        ("hf.co/bartowski/Qwen2.5-Coder-7B-GGUF", "ollama"),
        ("my-finetune", "ollama"),  # unrecognised: the nav plan says Ollama
        ("gpt-4o", "openai"),
        ("gpt-5-mini", "openai"),
        ("o3", "openai"),
        ("o4-mini", "openai"),
        ("Qwen/Qwen2.5-7B-Instruct", "openai"),  # a Hugging Face id served by vLLM
        ("anthropic/claude-sonnet-4", "openai"),  # OpenRouter
    ],
)
def test_detect_provider(model: str, provider: str) -> None:
    assert detect_provider(model) == provider


def test_default_base_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert detect_base_url("ollama") == "http://127.0.0.1:11434"
    assert detect_base_url("anthropic") == "https://api.anthropic.com"
    assert detect_base_url("openai") == "https://api.openai.com/v1"
    with pytest.raises(ValueError, match="unknown provider"):
        detect_base_url("bard")


def test_ollama_host_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:8080")
    assert detect_base_url("ollama") == "http://gpu-box:8080"


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("1.2.3.4", "http://1.2.3.4:11434"),
        (":56789", "http://127.0.0.1:56789"),
        ("0.0.0.0", "http://0.0.0.0:11434"),
        ("http://example.com", "http://example.com:80"),
        ("https://example.com", "https://example.com:443"),
        ("example.com:56789/path/", "http://example.com:56789/path"),
        ("[::1]", "http://[::1]:11434"),
        ("https://[::1]:5/p", "https://[::1]:5/p"),
    ],
)
def test_ollama_host_forms(host: str, url: str) -> None:
    assert normalise_ollama_host(host) == url
