"""Records the index passes between its modules: symbols, chunks and build statistics."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Symbol:
    """A definition found in a file; lines are 1-based and inclusive."""

    name: str
    kind: str  # function, method, class, struct, interface, enum, trait, impl, type, module, section
    start_line: int
    end_line: int
    parent: str | None = None

    @property
    def qualified_name(self) -> str:
        return f"{self.parent}.{self.name}" if self.parent else self.name


@dataclass(frozen=True)
class Chunk:
    """A searchable passage of a file: one definition, or a block of neighbouring lines."""

    start_line: int
    end_line: int
    text: str
    symbol: str | None = None  # qualified name of the definition the chunk belongs to
    kind: str = "block"


@dataclass
class IndexStats:
    """What one build or update did."""

    root: str
    files_seen: int = 0
    files_indexed: int = 0  # read and chunked (new or changed content)
    files_unchanged: int = 0
    files_removed: int = 0
    files_skipped: int = 0  # binary or too large
    chunks: int = 0  # total in the index afterwards
    symbols: int = 0
    embedded: int = 0  # chunks embedded by this run
    embed_model: str | None = None
    embeddings: str = "off"  # off | ok | skipped
    seconds: float = 0.0
    notices: list[str] = field(default_factory=list)

    @property
    def files_per_second(self) -> float:
        return self.files_seen / self.seconds if self.seconds > 0 else 0.0

    def summary(self) -> str:
        parts = [
            f"Indexed {self.files_seen:,} files",
            f"({self.files_indexed:,} read, {self.files_unchanged:,} unchanged, "
            f"{self.files_removed:,} removed, {self.files_skipped:,} skipped)",
            f"-> {self.chunks:,} chunks, {self.symbols:,} symbols",
            f"in {self.seconds:.1f} s",
        ]
        if self.seconds > 0 and self.files_seen:
            parts.append(f"({self.files_per_second:,.0f} files/s)")
        line = " ".join(parts)
        if self.embeddings == "ok":
            line += f"; embedded {self.embedded:,} chunks with {self.embed_model}"
        return line

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["files_per_second"] = round(self.files_per_second, 1)
        return data
