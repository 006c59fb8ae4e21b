"""Sizes in bytes as people type and read them: ``64M``, ``200MB``, ``1.5G``, ``65536``.

Suffixes count in powers of 1024 whether they are spelled ``K``, ``KB`` or ``KiB`` (as the timeline's Size
column does): someone raising a message limit wants "enough", and a limit slightly above what they typed
never refuses a message they meant to allow.
"""

from __future__ import annotations

import re

#: The default bound on one message read whole (the stdio framing's line limit, ``--max-message``).
DEFAULT_MAX_MESSAGE = 64 * 1024 * 1024

_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([KMG]?)(?:I?B)?\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """The number of bytes ``text`` names: a number with an optional K, M or G (optionally followed by B or
    iB; any case). Raises ValueError with a sentence naming what was typed when it is no size, or zero."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a size: give bytes or a number with K, M or G, for example 64M or 200MB")
    size = int(float(match.group(1)) * _UNITS[match.group(2).upper()])
    if size < 1:
        raise ValueError(f"{text!r} is not a size: it must be at least 1 byte")
    return size


def format_size(size: int) -> str:
    """``size`` in the largest unit that keeps it readable: ``64 MiB``, ``1.5 GiB``, ``512 bytes``."""
    for unit, factor in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if size >= factor:
            return f"{size / factor:.1f}".removesuffix(".0") + f" {unit}"
    return f"{size} byte{'' if size == 1 else 's'}"
