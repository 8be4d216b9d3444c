"""Colour arithmetic for themes: the xterm 256-colour palette, WCAG contrast, blending. No Textual here."""

from __future__ import annotations

import re

HEX_RE = re.compile(r"^#[0-9a-fA-F]{6}\Z")
CSS_HEX_RE = re.compile(r"^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})\Z")
"""The hex forms omp accepts (its colour parser is CSS's): #RGB, #RGBA, #RRGGBB, #RRGGBBAA."""


def normalise_hex(colour: str) -> str:
    """A CSS hex colour as ``#rrggbb`` or ``#rrggbbaa`` (short forms doubled, lower case)."""
    digits = colour[1:].lower()
    if len(digits) in (3, 4):
        digits = "".join(digit * 2 for digit in digits)
    return "#" + digits


def flatten_alpha(colour: str, background: str) -> str:
    """``#rrggbbaa`` painted over the opaque ``background``: the ``#rrggbb`` a terminal can show."""
    if len(colour) != 9:
        return colour
    return blend(background, colour[:7], int(colour[7:], 16) / 255)


# xterm's defaults for the 16 system colours; terminals may differ, which is why hex is preferred.
_SYSTEM_COLOURS = (
    "#000000",
    "#800000",
    "#008000",
    "#808000",
    "#000080",
    "#800080",
    "#008080",
    "#c0c0c0",
    "#808080",
    "#ff0000",
    "#00ff00",
    "#ffff00",
    "#0000ff",
    "#ff00ff",
    "#00ffff",
    "#ffffff",
)
_CUBE_STEPS = (0, 95, 135, 175, 215, 255)


def xterm_to_hex(index: int) -> str:
    """The ``#rrggbb`` of an xterm 256-colour palette index (0-255)."""
    if not 0 <= index <= 255:
        raise ValueError(f"xterm colour index out of range: {index}")
    if index < 16:
        return _SYSTEM_COLOURS[index]
    if index < 232:
        cube = index - 16
        red, green, blue = _CUBE_STEPS[cube // 36], _CUBE_STEPS[(cube // 6) % 6], _CUBE_STEPS[cube % 6]
        return f"#{red:02x}{green:02x}{blue:02x}"
    level = 8 + 10 * (index - 232)
    return f"#{level:02x}{level:02x}{level:02x}"


def hex_to_rgb(colour: str) -> tuple[int, int, int]:
    if not HEX_RE.match(colour):
        raise ValueError(f"not a #RRGGBB colour: {colour!r}")
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def rgb_to_hex(red: float, green: float, blue: float) -> str:
    return "#" + "".join(f"{max(0, min(255, round(channel))):02x}" for channel in (red, green, blue))


def relative_luminance(colour: str) -> float:
    """WCAG 2.x relative luminance of a ``#rrggbb`` colour (0 black .. 1 white)."""

    def linear(channel: int) -> float:
        value = channel / 255
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = hex_to_rgb(colour)
    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


def contrast_ratio(foreground: str, background: str) -> float:
    """WCAG contrast ratio between two ``#rrggbb`` colours (1 .. 21; 4.5 is AA for body text)."""
    lighter, darker = sorted((relative_luminance(foreground), relative_luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def is_dark(colour: str) -> bool:
    """A background is dark when white text contrasts with it better than black text does."""
    return contrast_ratio("#ffffff", colour) > contrast_ratio("#000000", colour)


def blend(base: str, other: str, amount: float) -> str:
    """``base`` moved ``amount`` (0..1) of the way towards ``other``."""
    base_rgb, other_rgb = hex_to_rgb(base), hex_to_rgb(other)
    return rgb_to_hex(*(b + (o - b) * amount for b, o in zip(base_rgb, other_rgb, strict=True)))
