"""Decoding a server's image bytes within a pixel limit, off the GUI thread.

:func:`decode` reads the image's size from its header (``QImageReader.size()`` reads no pixel), refuses one
over the limit with a sentence (:func:`inspector.core.present.images.too_large`), else decodes it and scales
it down to ``fit`` pixels square when asked. It touches no widget and no ``QPixmap``, so it runs in any thread;
:func:`decode_off_thread` runs it in the one image thread (one decode at a time: memory stays bounded however
many images arrive) and gives the result back on the event loop. Qt's own allocation limit
(:data:`ALLOCATION_LIMIT_MB`) stays as a backstop for a format whose header gives no size.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QSize, Qt
from PySide6.QtGui import QImage, QImageReader

from inspector.core.present.images import too_large

#: what Qt may allocate for one image, in MiB, whatever its header said (Qt's default is 256)
ALLOCATION_LIMIT_MB = 128

_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="image-decoder")


@dataclass(frozen=True)
class Decoded:
    """An image decoded (and scaled to fit, if asked), or the sentence why not; its size as its header says."""

    image: QImage | None
    width: int = 0
    height: int = 0
    problem: str | None = None


def decode(raw: bytes, max_pixels: int, fit: int | None = None) -> Decoded:
    """``raw`` as an image of at most ``max_pixels`` pixels, scaled down to ``fit`` pixels square when it is
    larger (see the module docstring). Safe in any thread."""
    if QImageReader.allocationLimit() != ALLOCATION_LIMIT_MB:
        QImageReader.setAllocationLimit(ALLOCATION_LIMIT_MB)
    buffer = QBuffer()
    buffer.setData(QByteArray(raw))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    size = reader.size()
    if size.isValid():
        problem = too_large(size.width(), size.height(), max_pixels)
        if problem is not None:
            return Decoded(None, size.width(), size.height(), problem)
    image = reader.read()
    if image.isNull():
        return Decoded(None, max(size.width(), 0), max(size.height(), 0),
                       f"Qt cannot decode it as an image ({reader.errorString()})")
    width, height = image.width(), image.height()
    if fit is not None and max(width, height) > fit:
        image = image.scaled(QSize(fit, fit), Qt.AspectRatioMode.KeepAspectRatio,
                             Qt.TransformationMode.SmoothTransformation)
    return Decoded(image, width, height)


async def decode_off_thread(raw: bytes, max_pixels: int, fit: int | None = None) -> Decoded:
    """:func:`decode` in the image thread; the GUI thread keeps running meanwhile."""
    return await asyncio.get_running_loop().run_in_executor(_THREAD, decode, raw, max_pixels, fit)


__all__ = ["ALLOCATION_LIMIT_MB", "Decoded", "decode", "decode_off_thread"]
