"""Telling text from binary, describing binaries and images, decoding text with its BOM and line endings.

The binary test is the repository walker's (``core/walk.py``: a NUL byte in the first 8 KB), refined for what
``read`` can do better: a UTF-16 file with its BOM is text, a known format is binary even without a NUL.
"""

from __future__ import annotations

import stat
import struct
from dataclasses import dataclass
from pathlib import Path

from navtui.core import walk
from navtui.core.errors import ToolError
from navtui.core.walk import SNIFF_BYTES
from navtui.tools.shell.output import human_size

UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}

_MAGIC: list[tuple[bytes, int, str]] = [
    (b"\x89PNG\r\n\x1a\n", 0, "PNG image"),
    (b"\xff\xd8\xff", 0, "JPEG image"),
    (b"GIF87a", 0, "GIF image"),
    (b"GIF89a", 0, "GIF image"),
    (b"WEBP", 8, "WebP image"),
    (b"\x00\x00\x01\x00", 0, "ICO image"),
    (b"II*\x00", 0, "TIFF image"),
    (b"MM\x00*", 0, "TIFF image"),
    (b"BM", 0, "BMP image"),
    (b"%PDF-", 0, "PDF document"),
    (b"PK\x03\x04", 0, "ZIP archive (or a jar/docx/xlsx/wheel)"),
    (b"\x1f\x8b", 0, "gzip archive"),
    (b"BZh", 0, "bzip2 archive"),
    (b"\xfd7zXZ\x00", 0, "xz archive"),
    (b"7z\xbc\xaf\x27\x1c", 0, "7-Zip archive"),
    (b"\x28\xb5\x2f\xfd", 0, "zstd archive"),
    (b"\x7fELF", 0, "ELF executable or library"),
    (b"\xcf\xfa\xed\xfe", 0, "Mach-O binary"),
    (b"\xca\xfe\xba\xbe", 0, "Java class or Mach-O universal binary"),
    (b"MZ", 0, "Windows executable"),
    (b"SQLite format 3\x00", 0, "SQLite database"),
    (b"\x00asm", 0, "WebAssembly module"),
    (b"ustar", 257, "tar archive"),
    (b"OggS", 0, "Ogg media"),
    (b"ID3", 0, "MP3 audio"),
    (b"fLaC", 0, "FLAC audio"),
    (b"ftyp", 4, "MP4/MOV media"),
]


# Short magics that plain text can start with: trusted only when a NUL byte follows soon.
_WEAK = {b"BM", b"MZ", b"BZh", b"ID3"}


def kind_of(head: bytes) -> str | None:
    """A name for a binary format recognised by its magic bytes, else None."""
    for magic, offset, name in _MAGIC:
        if head[offset : offset + len(magic)] == magic:
            if magic in _WEAK and b"\x00" not in head[:512]:
                continue
            return name
    return None


def _image_size(head: bytes, kind: str) -> tuple[int, int] | None:
    try:
        if kind == "PNG image" and head[12:16] == b"IHDR":
            return struct.unpack(">II", head[16:24])
        if kind == "GIF image":
            return struct.unpack("<HH", head[6:10])
        if kind == "BMP image":
            width, height = struct.unpack("<ii", head[18:26])
            return width, abs(height)
        if kind == "JPEG image":
            index = 2
            while index + 9 < len(head):
                if head[index] != 0xFF:
                    index += 1
                    continue
                marker = head[index + 1]
                if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
                    height, width = struct.unpack(">HH", head[index + 5 : index + 9])
                    return width, height
                length = struct.unpack(">H", head[index + 2 : index + 4])[0]
                index += 2 + length
    except struct.error:
        return None
    return None


def is_binary(head: bytes) -> bool:
    if any(head.startswith(bom) for bom in UTF16_BOMS):
        return False
    return walk.is_binary(head) or kind_of(head) is not None


def describe_binary(path: Path, head: bytes, size: int) -> str:
    kind = kind_of(head) or "binary file"
    text = f"{path.name}: {kind}, {human_size(size)}"
    dims = _image_size(head, kind) if kind.endswith("image") else None
    if dims:
        text += f", {dims[0]}x{dims[1]} pixels"
    return text + ". Its content is not shown as text."


def require_regular(path: Path, shown: str) -> int:
    """The size of a regular file, or a ``ToolError`` for a missing path, a FIFO, a device or a socket."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ToolError(f"File not found: {shown}") from None
    except NotADirectoryError:
        raise ToolError(f"File not found: {shown} (a parent is not a directory)") from None
    except PermissionError:
        raise ToolError(f"Permission denied: {shown}") from None
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return st.st_size
    if stat.S_ISDIR(mode):
        raise ToolError(f"{shown} is a directory")
    kinds = {
        stat.S_ISFIFO(mode): "a FIFO (named pipe)",
        stat.S_ISCHR(mode): "a character device",
        stat.S_ISBLK(mode): "a block device",
        stat.S_ISSOCK(mode): "a socket",
    }
    # Opening these can block forever or never end; they are refused before any open().
    raise ToolError(f"Refused to open {shown}: it is {kinds.get(True, 'not a regular file')}")


@dataclass
class TextContent:
    text: str  # without the BOM; line endings as in the file
    bom: bytes
    crlf: bool  # every line ends in CRLF (work in LF, write back CRLF)


def decode_for_edit(data: bytes, shown: str) -> TextContent:
    """Strict UTF-8 (with or without BOM); anything else is refused so an edit never writes U+FFFD."""
    if is_binary(data[:SNIFF_BYTES]):
        raise ToolError(f"{shown} is a binary file; it cannot be edited as text")
    bom = UTF8_BOM if data.startswith(UTF8_BOM) else b""
    if any(data.startswith(b) for b in UTF16_BOMS):
        raise ToolError(f"{shown} is UTF-16; edit refuses it to keep its bytes intact (convert it with shell first)")
    try:
        text = data[len(bom) :].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(
            f"{shown} is not valid UTF-8 (byte {exc.start}); edit refuses it so no character gets replaced. "
            "Change it with shell (e.g. iconv) or rewrite it with write."
        ) from None
    newlines = text.count("\n")
    crlf = newlines > 0 and text.count("\r\n") == newlines
    return TextContent(text.replace("\r\n", "\n") if crlf else text, bom, crlf)


def encode_text(content: TextContent, text: str) -> bytes:
    """Back to bytes with the original BOM and line endings."""
    if content.crlf:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    return content.bom + text.encode("utf-8")
