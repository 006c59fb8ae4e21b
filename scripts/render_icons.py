"""Render the app icon's PNGs (and the Windows .ico, macOS .icns) from its SVG: python scripts/render_icons.py

resources/mcp-inspector.svg is the one hand-written source; this writes, next to it,
mcp-inspector-SIZE.png for each size in SIZES, mcp-inspector.ico (16 to 256) and mcp-inspector.icns (when Qt's
image formats plugin can write it). Rendered offscreen with Qt's QSvgRenderer; run it again after editing the SVG.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ROOT = Path(__file__).resolve().parent.parent
RESOURCES = ROOT / "inspector" / "resources"
SVG = RESOURCES / "mcp-inspector.svg"
SIZES = (16, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 32, 48, 64, 128, 256)


def render(renderer: QSvgRenderer, size: int) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    return image


def png_bytes(image: QImage) -> bytes:
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data.data())


def ico(images: list[QImage]) -> bytes:
    """A Windows .ico holding a PNG of each size (Vista and later read PNG entries)."""
    pngs = [png_bytes(image) for image in images]
    header = (0).to_bytes(2, "little") + (1).to_bytes(2, "little") + len(pngs).to_bytes(2, "little")
    offset = 6 + 16 * len(pngs)
    entries, bodies = b"", b""
    for image, png in zip(images, pngs, strict=True):
        side = image.width() % 256  # 256 is written as 0
        entries += bytes([side, side, 0, 0]) + (1).to_bytes(2, "little") + (32).to_bytes(2, "little")
        entries += len(png).to_bytes(4, "little") + offset.to_bytes(4, "little")
        offset += len(png)
        bodies += png
    return header + entries + bodies


def icns(by_size: dict[int, QImage]) -> bytes:
    """A macOS .icns of PNG entries (ic04 16 px ... ic10 1024 px; 512 px is also ic09)."""
    types = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09"}
    body = b""
    for size, kind in types.items():
        png = png_bytes(by_size[size])
        body += kind + (8 + len(png)).to_bytes(4, "big") + png
    return b"icns" + (8 + len(body)).to_bytes(4, "big") + body


def main() -> int:
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # held: QPainter needs an application
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        print(f"{SVG}: Qt cannot read this SVG", file=sys.stderr)
        return 1
    by_size = {size: render(renderer, size) for size in SIZES}
    for size, image in by_size.items():
        path = RESOURCES / f"mcp-inspector-{size}.png"
        path.write_bytes(png_bytes(image))
        print(path.relative_to(ROOT))
    (RESOURCES / "mcp-inspector.ico").write_bytes(ico([by_size[s] for s in ICO_SIZES]))
    (RESOURCES / "mcp-inspector.icns").write_bytes(icns(by_size))
    print((RESOURCES / "mcp-inspector.ico").relative_to(ROOT), (RESOURCES / "mcp-inspector.icns").relative_to(ROOT))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
