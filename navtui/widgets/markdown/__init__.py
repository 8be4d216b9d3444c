"""Streamed Markdown: ``view`` (the widget), ``blocks`` (where a growing document is cut), ``render`` (one block)."""
