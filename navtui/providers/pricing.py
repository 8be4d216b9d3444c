"""A small price table (US dollars per million tokens) for cost estimates in the status line.

Prices are list prices at the time of writing; an unknown model costs nothing rather than a wrong amount.
Entries are matched by the longest model-name prefix, so dated ids (``claude-sonnet-4-5-20250929``) match.
"""

from __future__ import annotations

from dataclasses import dataclass

from navtui.core.messages import Cost, Usage


@dataclass(frozen=True)
class Price:
    input: float
    output: float
    cache_read: float
    cache_write: float


_PRICES: dict[str, Price] = {
    # Anthropic: cache writes (5-minute TTL) cost 1.25x input, cache reads 0.1x.
    "claude-opus-4-5": Price(5.0, 25.0, 0.50, 6.25),
    "claude-opus-4-1": Price(15.0, 75.0, 1.50, 18.75),
    "claude-opus-4-0": Price(15.0, 75.0, 1.50, 18.75),
    "claude-opus-4-2025": Price(15.0, 75.0, 1.50, 18.75),
    "claude-sonnet-4": Price(3.0, 15.0, 0.30, 3.75),
    "claude-3-7-sonnet": Price(3.0, 15.0, 0.30, 3.75),
    "claude-3-5-sonnet": Price(3.0, 15.0, 0.30, 3.75),
    "claude-haiku-4-5": Price(1.0, 5.0, 0.10, 1.25),
    "claude-3-5-haiku": Price(0.80, 4.0, 0.08, 1.0),
    "claude-3-haiku": Price(0.25, 1.25, 0.03, 0.30),
    "claude-3-opus": Price(15.0, 75.0, 1.50, 18.75),
    # OpenAI: cached input at the provider's discount, no separate write price.
    "gpt-4o-mini": Price(0.15, 0.60, 0.075, 0.15),
    "gpt-4o": Price(2.50, 10.0, 1.25, 2.50),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.025, 0.10),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.10, 0.40),
    "gpt-4.1": Price(2.0, 8.0, 0.50, 2.0),
    "gpt-5-nano": Price(0.05, 0.40, 0.005, 0.05),
    "gpt-5-mini": Price(0.25, 2.0, 0.025, 0.25),
    "gpt-5": Price(1.25, 10.0, 0.125, 1.25),
    "o4-mini": Price(1.10, 4.40, 0.275, 1.10),
    "o3-mini": Price(1.10, 4.40, 0.55, 1.10),
    "o3": Price(2.0, 8.0, 0.50, 2.0),
}


def price_for(model: str) -> Price | None:
    name = model.lower().rsplit("/", 1)[-1]  # openrouter-style "anthropic/claude-..." ids too
    best = max((key for key in _PRICES if name.startswith(key)), key=len, default=None)
    return _PRICES[best] if best else None


def estimate_cost(model: str, usage: Usage) -> Cost | None:
    """The cost of one response's usage, or None for a model not in the table (local models are free)."""
    price = price_for(model)
    if price is None:
        return None
    per_token = 1 / 1_000_000
    cost = Cost(
        input=usage.input * price.input * per_token,
        output=usage.output * price.output * per_token,
        cache_read=usage.cache_read * price.cache_read * per_token,
        cache_write=usage.cache_write * price.cache_write * per_token,
    )
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
    return cost


def with_cost(model: str, usage: Usage) -> Usage:
    return usage.model_copy(update={"cost": estimate_cost(model, usage)})
