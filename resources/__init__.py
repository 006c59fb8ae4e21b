"""Files the app ships besides code: its icon (SVG and PNGs), desktop entry, AppStream metainfo and the
shared-mime-info type of capture files. They live in the top-level resources/ folder; the package
reaches them as ``inspector.resources`` through the symlink inspector/resources -> ../resources, so a wheel,
a source checkout and the PyInstaller app all find them next to this module. The icon's PNGs, .ico and .icns
are rendered from the SVG by
scripts/render_icons.py."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent

ICON_NAME = "mcp-inspector"
ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)
DESKTOP_FILE = "mcp-inspector.desktop"
METAINFO_FILE = "io.github.mcp_inspector.metainfo.xml"
MIME_FILE = "mcp-inspector.xml"
CAPTURE_MIME_TYPE = "application/x-mcp-inspector-capture"


def path(name: str) -> Path:
    return HERE / name


def icon_png(size: int) -> Path:
    return HERE / f"{ICON_NAME}-{size}.png"


def icon_svg() -> Path:
    return HERE / f"{ICON_NAME}.svg"
