"""Images from servers, before anything decodes them: how large one may be, and the bytes of an icon.

A PNG of 190 KB can decode to 7000 x 7000 RGBA pixels, 196 MB; twenty tool icons or ten result images like it
took the window 2-4 GB and froze it for 5-22 s (issue 26). So an image is measured from its header first
(the window does it with Qt's ``QImageReader.size()``, which reads no pixel) and decoded only when it has at
most :data:`MAX_PIXELS` (a result) or :data:`ICON_MAX_PIXELS` (an icon); the window decodes off its GUI
thread, one image at a time.

Icons are taken only from ``data:`` URIs with base64 data: server content is untrusted and the window opens no
connection (https://modelcontextprotocol.io/specification/2025-11-25/basic/index#icons).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

#: pixels of a result image decoded at most: a 4K screenshot (8.3 million) fits; 64 MiB as RGBA
MAX_PIXELS = 4096 * 4096
#: pixels of an icon decoded at most: icons are drawn 20 pixels square
ICON_MAX_PIXELS = 1024 * 1024


def too_large(width: int, height: int, limit: int) -> str | None:
    """Why an image of ``width`` x ``height`` pixels is not decoded (one sentence), or None when it may be."""
    if width * height <= limit:
        return None
    return (f"{width:,} × {height:,} pixels is too large to show (over {limit / 1_000_000:.1f} million pixels, "
            f"{width * height * 4 / 1048576:,.0f} MiB decoded)")


def data_uri_bytes(src: Any) -> bytes | None:
    """The bytes of a ``data:...;base64,...`` URI; None for anything else (a URL is never fetched) or bad base64."""
    if not isinstance(src, str) or not src.startswith("data:") or ";base64," not in src:
        return None
    try:
        return base64.b64decode(src.split(";base64,", 1)[1], validate=False)
    except (binascii.Error, ValueError):
        return None


def icon_bytes(item: Any) -> bytes | None:
    """The bytes of the first of an item's ``icons`` given as a base64 ``data:`` URI, or None."""
    icons = item.get("icons") if isinstance(item, dict) else None
    for icon in icons if isinstance(icons, list) else []:
        raw = data_uri_bytes(icon.get("src") if isinstance(icon, dict) else None)
        if raw:
            return raw
    return None


__all__ = ["MAX_PIXELS", "ICON_MAX_PIXELS", "too_large", "data_uri_bytes", "icon_bytes"]
