"""navtui: a terminal coding agent for local and hosted models."""

__version__ = "0.1.0"
