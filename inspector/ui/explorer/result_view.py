"""What a tool call, a resource read or a prompt gave, shown for a person.

Server content is untrusted: text is shown as plain text, or, when the user ticks "Markdown", rendered by a
:class:`SafeBrowser` that opens no link and loads no image or other resource (remote or local); images are
decoded from their base64 data (never fetched); audio is described and saved, and played only when
QtMultimedia is available. A resource link is a button that reads the resource through the session
(:attr:`ResultView.read_requested`). ``structuredContent`` is shown and checked against the tool's
``outputSchema``; a mismatch is a finding sentence. ``isError: true`` is shown as the tool's error, a JSON-RPC
error as the server's.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
from typing import Any

from PySide6.QtCore import QSize, Qt, QUrl, Signal
from PySide6.QtGui import QFontDatabase, QMouseEvent, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from inspector.core.present.describe import hexdump
from inspector.core.present.images import MAX_PIXELS
from inspector.core.schemas.validate import violations
from inspector.core.tasks import Tasks
from inspector.ui.images import Decoded, decode, decode_off_thread
from inspector.ui.json_highlighter import is_dark
from inspector.ui.panels.composer import STATUS_COLOURS
from inspector.ui.timeline.model import plain_tooltip

#: An image is shown at most this many pixels wide or high in the result; a click shows it whole.
THUMBNAIL_SIDE = 320
#: An image smaller than this is shown enlarged to it (a 20-pixel icon is otherwise hard to see); its tooltip
#: gives the real size.
SMALL_IMAGE_SIDE = 96
#: A text block grows with its text up to this many pixels high, then scrolls.
TEXT_MAX_HEIGHT = 360
#: Bytes of a blob shown as hex.
HEX_PREVIEW_BYTES = 256
#: Characters of one text block put on screen (the whole text is in the timeline's detail).
TEXT_SHOWN_CHARS = 200_000


class SafeBrowser(QTextBrowser):
    """A read-only text view that follows no link and loads nothing: every resource (image, stylesheet) a
    document names, remote or local, stays unloaded."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)

    def loadResource(self, kind: int, name: QUrl | str) -> Any:
        return None

    def _fit(self, size: Any) -> None:
        self.setFixedHeight(min(TEXT_MAX_HEIGHT, int(size.height()) + 2 * self.frameWidth() + 6))

    def show_text(self, text: str, markdown: bool) -> None:
        text = text if len(text) <= TEXT_SHOWN_CHARS else text[:TEXT_SHOWN_CHARS] + "\n… (cut here; the whole " \
                                                                                    "text is in the timeline)"
        if markdown:
            self.setMarkdown(text)
        else:
            self.setPlainText(text)


class ImageLabel(QLabel):
    """An image, as a thumbnail of at most :data:`THUMBNAIL_SIDE` pixels (decoded off the GUI thread, within
    the pixel limit); a click shows it whole, decoded again from its bytes."""

    def __init__(self, decoded: Decoded, raw: bytes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        assert decoded.image is not None
        self.raw = raw
        self.width_px, self.height_px = decoded.width, decoded.height
        pixmap = QPixmap.fromImage(decoded.image)
        side = max(decoded.width, decoded.height)
        if 0 < side < SMALL_IMAGE_SIDE:
            pixmap = pixmap.scaled(QSize(SMALL_IMAGE_SIDE, SMALL_IMAGE_SIDE), Qt.AspectRatioMode.KeepAspectRatio,
                                   Qt.TransformationMode.SmoothTransformation)
        self.setPixmap(pixmap)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip(f"{decoded.width} × {decoded.height} pixels: click to enlarge")

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.enlarge()

    def enlarge(self) -> QDialog:
        # a click on an image already measured within MAX_PIXELS: decoded here, at most a fraction of a second
        whole = decode(self.raw, MAX_PIXELS).image
        dialog = QDialog(self)
        dialog.setWindowTitle(f"Image, {self.width_px} × {self.height_px}")
        area = QScrollArea(dialog)
        label = QLabel()
        if whole is not None:
            label.setPixmap(QPixmap.fromImage(whole))
        area.setWidget(label)
        layout = QVBoxLayout(dialog)
        layout.addWidget(area)
        dialog.resize(min(self.width_px + 40, 1200), min(self.height_px + 40, 900))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog


def decode_base64(data: Any) -> tuple[bytes | None, str | None]:
    """The bytes of a base64 field, or a sentence saying why there are none."""
    if not isinstance(data, str):
        return None, "the content has no base64 data"
    try:
        return base64.b64decode(data, validate=False), None
    except (binascii.Error, ValueError) as exc:
        return None, f"the base64 data cannot be decoded: {exc}"


def size_text(n: int) -> str:
    return f"{n:,} bytes" if n < 1024 else f"{n / 1024:,.1f} KiB" if n < 1024 * 1024 else f"{n / 1048576:,.1f} MiB"


def _extension(mime: str) -> str:
    sub = mime.split("/", 1)[-1].split(";", 1)[0].split("+", 1)[0]
    return sub if sub.isalnum() and len(sub) <= 5 else "bin"


def _multimedia() -> Any:
    """QtMultimedia's module, or None where it cannot load (missing system libraries)."""
    try:
        from PySide6 import QtMultimedia
    except ImportError:
        return None
    return QtMultimedia


class ResultView(QWidget):
    """The answer shown block by block: a header line, a progress bar while a call runs, then the content."""

    read_requested = Signal(str)  #: the user clicked a resource link: read this URI

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel(self)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.heading.setWordWrap(True)
        self.markdown = QCheckBox("Markdown", self)
        self.markdown.setToolTip("Render text as Markdown (links are not followed, no image is loaded)")
        self.markdown.toggled.connect(self._rerender)
        self.progress = QProgressBar(self)
        self.progress.hide()
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.markdown)
        self.body = QWidget()
        self.blocks = QVBoxLayout(self.body)
        self.blocks.setContentsMargins(0, 0, 0, 0)
        self.blocks.addStretch(1)
        self.area = QScrollArea(self)
        self.area.setWidgetResizable(True)
        self.area.setFrameShape(QFrame.Shape.NoFrame)
        self.area.setWidget(self.body)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.progress)
        layout.addWidget(self.area, 1)
        self._texts: list[tuple[SafeBrowser, str]] = []
        self.images: list[ImageLabel] = []  #: the images shown (tests look at their pixmaps)
        self.decoding = Tasks(report=lambda sentence: self.say(sentence, failure=True))  #: images being decoded
        self.findings: list[str] = []  #: sentences of what is wrong with the result (a schema mismatch)

    # -- building blocks -----------------------------------------------------------------------------------

    def clear(self, heading: str = "") -> None:
        self.decoding.cancel_all()  # their blocks go now
        while self.blocks.count() > 1:
            item = self.blocks.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self._texts = []
        self.images = []
        self.findings = []
        self.progress.hide()
        self.say(heading)

    def say(self, text: str, *, failure: bool = False) -> None:
        self.heading.setText(text)
        self._colour(self.heading, "error" if failure else None)

    def _colour(self, label: QLabel, status: str | None) -> None:
        palette = self.palette()
        if status is not None:
            light, dark = STATUS_COLOURS[status]
            palette.setColor(label.foregroundRole(), dark if is_dark(palette) else light)
        label.setPalette(palette)

    def _add(self, widget: QWidget) -> QWidget:
        self.blocks.insertWidget(self.blocks.count() - 1, widget)
        return widget

    def add_label(self, text: str, status: str | None = None, *, mono: bool = False) -> QLabel:
        label = self._label(text, status, mono=mono)
        self._add(label)
        return label

    def _label(self, text: str, status: str | None = None, *, mono: bool = False) -> QLabel:
        label = QLabel(text)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if mono:
            label.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self._colour(label, status)
        return label

    def add_text(self, text: str, *, mono: bool = False) -> SafeBrowser:
        browser = SafeBrowser()
        if mono:
            browser.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
            browser.setPlainText(text)
        else:
            browser.show_text(text, self.markdown.isChecked())
            self._texts.append((browser, text))
        self._add(browser)
        return browser

    def _rerender(self, markdown: bool) -> None:
        for browser, text in self._texts:
            browser.show_text(text, markdown)

    def _save_row(self, what: str, data: bytes, mime: str, *, add: bool = True) -> QWidget:
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        label = QLabel(what)
        label.setTextFormat(Qt.TextFormat.PlainText)
        save = QPushButton("Save…")
        save.clicked.connect(lambda: self.save_bytes(data, mime))
        line.addWidget(label, 1)
        line.addWidget(save)
        return self._add(row) if add else row

    def save_bytes(self, data: bytes, mime: str) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save", f"content.{_extension(mime)}")
        if not path:
            return
        try:
            with open(path, "wb") as out:
                out.write(data)
        except OSError as exc:
            self.say(f"could not save {path}: {exc.strerror or exc}", failure=True)

    def add_image(self, data: Any, mime: str) -> None:
        """An image block: measured, then decoded off the GUI thread within :data:`MAX_PIXELS` (a line says so
        meanwhile); one too large, or that Qt cannot decode, is a sentence with Save…."""
        raw, problem = decode_base64(data)
        if raw is None:
            self.add_label(f"image ({mime}): {problem}", "error")
            return
        waiting = self.add_label(f"image ({mime}, {size_text(len(raw))}): decoding…")
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a test drives the view directly): decode here, still bounded
            self._image_decoded(waiting, decode(raw, MAX_PIXELS, THUMBNAIL_SIDE), raw, mime)
            return
        self.decoding.spawn(self._decode(waiting, raw, mime), "decoding an image")

    async def _decode(self, waiting: QLabel, raw: bytes, mime: str) -> None:
        self._image_decoded(waiting, await decode_off_thread(raw, MAX_PIXELS, THUMBNAIL_SIDE), raw, mime)

    def _image_decoded(self, waiting: QLabel, decoded: Decoded, raw: bytes, mime: str) -> None:
        """Put the image (or the sentence why not) where its "decoding…" line is."""
        at = self.blocks.indexOf(waiting)
        if at < 0:
            return
        self.blocks.removeWidget(waiting)
        waiting.deleteLater()
        blocks: list[QWidget] = []
        if decoded.image is None:
            blocks.append(self._label(f"image ({mime}, {size_text(len(raw))}): {decoded.problem}", "warning"))
            blocks.append(self._save_row("", raw, mime, add=False))
        else:
            label = ImageLabel(decoded, raw)
            self.images.append(label)
            blocks.append(label)
            blocks.append(self._save_row(f"{mime} · {decoded.width} × {decoded.height} · {size_text(len(raw))}",
                                         raw, mime, add=False))
        for offset, block in enumerate(blocks):
            self.blocks.insertWidget(at + offset, block)

    def add_audio(self, data: Any, mime: str) -> None:
        raw, problem = decode_base64(data)
        if raw is None:
            self.add_label(f"audio ({mime}): {problem}", "error")
            return
        row = self._save_row(f"audio · {mime} · {size_text(len(raw))}", raw, mime)
        multimedia = _multimedia()
        line = row.layout()
        if multimedia is not None and line is not None:
            play = QPushButton("Play")
            play.clicked.connect(lambda: self._play(multimedia, raw))
            line.addWidget(play)

    def _play(self, multimedia: Any, raw: bytes) -> None:
        from PySide6.QtCore import QBuffer, QByteArray

        buffer = QBuffer(self)
        buffer.setData(QByteArray(raw))
        buffer.open(QBuffer.OpenModeFlag.ReadOnly)
        player = multimedia.QMediaPlayer(self)
        output = multimedia.QAudioOutput(player)
        player.setAudioOutput(output)
        player.setSourceDevice(buffer)
        player.play()

    def add_blob(self, data: Any, mime: str) -> None:
        """A resource's blob: an image when it is one, else a hex preview; Save… either way."""
        if mime.startswith("image/"):
            self.add_image(data, mime)
            return
        raw, problem = decode_base64(data)
        if raw is None:
            self.add_label(f"blob ({mime}): {problem}", "error")
            return
        self._save_row(f"blob · {mime or 'no MIME type'} · {size_text(len(raw))}", raw, mime)
        self.add_text(hexdump(raw, HEX_PREVIEW_BYTES), mono=True)

    def add_resource(self, resource: Any) -> None:
        """One item of ``contents`` (a read) or an embedded resource: its URI, then its text or blob."""
        if not isinstance(resource, dict):
            self.add_label("a resource that is not an object", "warning")
            return
        mime = str(resource.get("mimeType") or "")
        self.add_label(f"resource {resource.get('uri', '(no uri)')}" + (f" · {mime}" if mime else ""))
        if isinstance(resource.get("text"), str):
            self.add_text(resource["text"])
        elif "blob" in resource:
            self.add_blob(resource.get("blob"), mime)
        else:
            self.add_label("the resource has neither text nor blob", "warning")

    def add_link(self, block: dict[str, Any]) -> None:
        uri = str(block.get("uri") or "")
        name = str(block.get("title") or block.get("name") or uri)
        button = QPushButton(f"↗ {name} — {uri}" if name != uri else f"↗ {uri}")
        button.setFlat(True)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setToolTip(plain_tooltip(str(block.get("description") or "Read this resource")))
        button.setStyleSheet("text-align: left; text-decoration: underline;")
        button.clicked.connect(lambda: self.read_requested.emit(uri))
        self._add(button)

    def add_content(self, block: Any) -> None:
        """One content block of a tool result or a prompt message."""
        if not isinstance(block, dict):
            self.add_label(f"a content block that is not an object: {json.dumps(block)[:200]}", "warning")
            return
        kind = block.get("type")
        if kind == "text":
            self.add_text(str(block.get("text", "")))
        elif kind == "image":
            self.add_image(block.get("data"), str(block.get("mimeType") or "image"))
        elif kind == "audio":
            self.add_audio(block.get("data"), str(block.get("mimeType") or "audio"))
        elif kind == "resource":
            self.add_resource(block.get("resource"))
        elif kind == "resource_link":
            self.add_link(block)
        else:
            self.add_label(f"content of type {kind!r}:", "warning")
            self.add_text(json.dumps(block, indent=2, ensure_ascii=False), mono=True)

    # -- whole answers -------------------------------------------------------------------------------------

    def show_progress(self, params: dict[str, Any]) -> None:
        """A progress notification of the running call: a bar (busy when there is no total) and its message."""
        progress, total = params.get("progress"), params.get("total")
        if isinstance(total, (int, float)) and total > 0 and isinstance(progress, (int, float)):
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * min(1.0, progress / total)))
            self.progress.setFormat(f"{progress:g} / {total:g}")
        else:
            self.progress.setRange(0, 0)
        self.progress.setTextVisible(True)
        self.progress.show()
        message = params.get("message")
        if isinstance(message, str):
            self.say(message)

    def show_error(self, method: str, error: Any) -> None:
        """A JSON-RPC error answer."""
        message = error.get("message") if isinstance(error, dict) else error
        code = error.get("code") if isinstance(error, dict) else None
        self.say(f"the server answered {method} with an error: {message} (code {code})", failure=True)
        if isinstance(error, dict) and "data" in error:
            self.add_text(json.dumps(error["data"], indent=2, ensure_ascii=False), mono=True)

    def show_call(self, tool: str, result: Any, output_schema: Any = None) -> None:
        """A ``tools/call`` result: its content, its structuredContent checked against ``output_schema``."""
        self.progress.hide()
        if not isinstance(result, dict):
            self.say(f"{tool}: the result is not an object", failure=True)
            return
        if result.get("isError") is True:
            self.say(f"{tool} reported a tool error (isError: true)", failure=True)
        else:
            self.say(f"{tool}: result")
        content = result.get("content")
        for block in content if isinstance(content, list) else []:
            self.add_content(block)
        if "structuredContent" in result:
            self.add_label("structuredContent:")
            self.add_text(json.dumps(result["structuredContent"], indent=2, ensure_ascii=False), mono=True)
        if isinstance(output_schema, dict) and result.get("isError") is not True:
            if "structuredContent" not in result:
                self.finding(f"{tool} declares an outputSchema but its result has no structuredContent")
            else:
                for violation in violations(output_schema, result["structuredContent"], root="structuredContent"):
                    self.finding(f"{violation.sentence} (the tool's outputSchema)")

    def finding(self, sentence: str) -> None:
        self.findings.append(sentence)
        self.add_label("⚠ " + sentence, "warning")

    def show_contents(self, uri: str, result: Any) -> None:
        """A ``resources/read`` result."""
        contents = result.get("contents") if isinstance(result, dict) else None
        if not isinstance(contents, list):
            self.say(f"the resources/read result for {uri} has no contents list", failure=True)
            return
        self.say(f"{uri}: {len(contents)} item{'s' if len(contents) != 1 else ''}")
        for item in contents:
            self.add_resource(item)

    def show_messages(self, name: str, result: Any) -> None:
        """A ``prompts/get`` result: each message's role, then its content."""
        messages = result.get("messages") if isinstance(result, dict) else None
        if not isinstance(messages, list):
            self.say(f"the prompts/get result for {name} has no messages list", failure=True)
            return
        description = result.get("description") if isinstance(result.get("description"), str) else ""
        self.say(f"{name}: {len(messages)} message{'s' if len(messages) != 1 else ''}"
                 + (f" · {description}" if description else ""))
        for message in messages:
            if not isinstance(message, dict):
                continue
            role = self.add_label(str(message.get("role", "?")))
            font = role.font()
            font.setBold(True)
            role.setFont(font)
            content = message.get("content")
            for block in content if isinstance(content, list) else [content]:
                self.add_content(block)
