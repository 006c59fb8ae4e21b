"""The Explorer's Skills page: the skills a server serves (the ``io.modelcontextprotocol/skills`` extension,
SEP-2640), over the core's :class:`~inspector.core.skills.shelf.SkillShelf`.

The list comes from ``skills/list`` (no skill file is read for it): each skill's name, description, how many files
and bytes, and why an entry cannot be loaded. Selecting a skill shows its frontmatter (as the listing gives it)
and its files with their digests. **Load skill** reads its ``SKILL.md`` and verifies it (size, sha256 digest, YAML
frontmatter field by field against the listing): only then is it loaded and shown. **Read file** reads the
selected supporting file, then and only then, verified the same way. A mismatch is a finding in red: the load
stops and nothing more is read from that skill. **Read directory** (a server that declares ``directoryRead``)
lists a directory's children as the server sees it now, which never widens what a loaded skill may read. Server
text is shown as plain text only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from inspector.core.notices import What
from inspector.core.skills.entries import SkillEntry
from inspector.core.skills.shelf import ShelfNotice, SkillShelf
from inspector.core.text import counted

_ROLE = Qt.ItemDataRole.UserRole
_FINDING = QBrush(QColor(220, 50, 47))
_VERIFIED = QBrush(QColor(20, 130, 60))
#: Bytes of a binary file shown as hex in the viewer (the rest: its size only).
HEX_PREVIEW = 512
Spawn = Callable[[Coroutine[Any, Any, Any], str], Any]


def skill_line(entry: SkillEntry) -> str:
    """One line for a skill of the list."""
    if entry.problem:
        return f"{entry.name or entry.uri} — cannot be loaded: {entry.problem}"
    size = "dynamic" if entry.dynamic else f"{len(entry.files or ())} files, {entry.total_bytes:,} bytes"
    return f"{entry.name} — {entry.description} [{size}]"


class SkillsPage(QWidget):
    """See the module's notes. :meth:`bind` it to a shelf, :meth:`server_ready` fills it."""

    def __init__(self, spawn: Spawn, say: Callable[..., None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._spawn = spawn
        self._say = say
        self.shelf: SkillShelf | None = None
        self.skill_list = QListWidget(self)
        self.skill_list.currentItemChanged.connect(lambda _item, _old: self._show_skill())
        self.listing_about = QLabel(self)
        self.listing_about.setTextFormat(Qt.TextFormat.PlainText)
        self.listing_about.setWordWrap(True)
        self.refresh_button = QPushButton("List again", self)
        self.refresh_button.clicked.connect(self.refresh)
        self.frontmatter = QPlainTextEdit(self)
        self.frontmatter.setReadOnly(True)
        self.frontmatter.setMaximumBlockCount(2000)
        self.file_list = QListWidget(self)
        self.file_list.currentItemChanged.connect(lambda _item, _old: self._show_file())
        self.file_list.itemActivated.connect(lambda _item: self.read_file())
        self.load_button = QPushButton("Load skill", self)
        self.load_button.setToolTip("Read SKILL.md and verify it against the listing (size, digest, frontmatter)")
        self.load_button.clicked.connect(self.load_skill)
        self.read_button = QPushButton("Read file", self)
        self.read_button.setToolTip("Read the selected file now, verified against the listing")
        self.read_button.clicked.connect(self.read_file)
        self.directory_button = QPushButton("Read directory", self)
        self.directory_button.setToolTip("resources/directory/read: the directory's children as the server sees "
                                         "them now")
        self.directory_button.clicked.connect(self.read_directory)
        self.finding = QLabel(self)
        self.finding.setTextFormat(Qt.TextFormat.PlainText)
        self.finding.setWordWrap(True)
        palette = self.finding.palette()
        palette.setColor(self.finding.foregroundRole(), QColor(220, 50, 47))
        self.finding.setPalette(palette)
        self.viewer = QPlainTextEdit(self)
        self.viewer.setReadOnly(True)
        self.viewer.setFont(QFont("monospace"))
        top = QHBoxLayout()  # two buttons a row at most: the Explorer stays as narrow as its other pages
        top.addWidget(self.refresh_button)
        top.addWidget(self.directory_button)
        top.addStretch(1)
        buttons = QHBoxLayout()
        for button in (self.load_button, self.read_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        for small in (self.skill_list, self.frontmatter, self.file_list, self.viewer):
            small.setMinimumHeight(48)  # the splitter's share grows with the window, not the window with it
        middle = QWidget(self)
        middle_layout = QVBoxLayout(middle)
        middle_layout.setContentsMargins(0, 0, 0, 0)
        middle_layout.addWidget(self.frontmatter, 1)
        middle_layout.addWidget(self.file_list, 1)
        middle_layout.addLayout(buttons)
        middle_layout.addWidget(self.finding)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.skill_list)
        split.addWidget(middle)
        split.addWidget(self.viewer)
        split.setSizes([150, 300, 250])
        layout = QVBoxLayout(self)
        layout.addWidget(self.listing_about)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        self._enable()

    # -- the shelf -------------------------------------------------------------------------------------

    def bind(self, shelf: SkillShelf) -> None:
        self.shelf = shelf
        shelf.listeners.append(self._notice)

    def server_ready(self) -> None:
        """The handshake is done: list the skills of a server that offers them (reads no skill file)."""
        if self.shelf is None or not self.shelf.offered:
            self.listing_about.setText("The server does not declare the io.modelcontextprotocol/skills extension.")
            self._enable()
            return
        self.refresh()

    def refresh(self) -> None:
        if self.shelf is not None and self.shelf.offered:
            self.listing_about.setText("listing skills…")
            self._spawn(self.shelf.refresh(), "listing skills")

    def _notice(self, notice: ShelfNotice) -> None:
        if notice.what == What.LISTED:
            self._fill()
        elif notice.what == What.LIST_FAILED:
            self.listing_about.setText(f"could not list skills: {notice.sentence}")
            self._say(f"could not list skills: {notice.sentence}", failure=True)
        elif notice.what in (What.LOADED, What.READ):
            self._show_skill(keep_file=notice.uri)
            self._show_listing()
        elif notice.what == What.FINDING:
            self._show_skill()
            self.finding.setText(f"Verification failed: {notice.sentence}")
            self._say(notice.sentence, failure=True)
        elif notice.what == What.DIRECTORY:
            children = notice.data if isinstance(notice.data, list) else []
            lines = [f"{c.get('uri')}  ({c.get('mimeType') or '?'})" for c in children]
            self.viewer.setPlainText(f"{notice.uri}: {len(children)} entries, as the server lists them now\n"
                                     + "\n".join(lines))
        elif notice.what == What.FAILED:
            self._say(notice.sentence, failure=True)
            self.finding.setText(notice.sentence)

    # -- what is shown ---------------------------------------------------------------------------------

    def _fill(self) -> None:
        assert self.shelf is not None
        current = self.current_uri()
        self.skill_list.clear()
        for entry in self.shelf.entries:
            item = QListWidgetItem(skill_line(entry))
            item.setData(_ROLE, entry.uri)
            item.setToolTip(entry.uri)
            if entry.problem:
                item.setForeground(_FINDING)
            self.skill_list.addItem(item)
            if entry.uri == current:
                self.skill_list.setCurrentItem(item)
        self._show_listing()
        self._enable()

    def _show_listing(self) -> None:
        """The header: how many skills, how many loaded and files read so far, the listing's freshness."""
        assert self.shelf is not None
        listing = self.shelf.listing
        hints = ""
        if listing is not None and listing.ttl_ms is not None:
            hints = f"; the listing is fresh for {listing.ttl_ms / 1000:g} s ({listing.cache_scope or 'no scope'})"
        count = len(self.shelf.entries)
        loaded = sum(1 for load in self.shelf.loads.values() if load.loaded)
        read = sum(len(load.files) for load in self.shelf.loads.values())
        done = f"{loaded} loaded, {counted(read, 'file')} read" if read or loaded else \
            "no skill file read yet"
        self.listing_about.setText(f"{counted(count, 'skill')} ({done}){hints}")

    def current_uri(self) -> str | None:
        item = self.skill_list.currentItem()
        return item.data(_ROLE) if item is not None else None

    def _show_skill(self, keep_file: str | None = None) -> None:
        uri = self.current_uri()
        entry = self.shelf.entry(uri) if self.shelf is not None and uri else None
        load = self.shelf.loads.get(uri) if self.shelf is not None and uri else None
        self.frontmatter.setPlainText(json.dumps(entry.frontmatter, indent=2, ensure_ascii=False) if entry else "")
        self.file_list.clear()
        self.finding.setText(str(load.failure) if load is not None and load.failure is not None else "")
        if entry is None:
            self._enable()
            return
        for listed in entry.files or ():
            read = load.files.get(listed.uri) if load is not None else None
            failed = load is not None and load.failure is not None and load.failure.uri == listed.uri
            state = "mismatch" if failed else "verified" if read is not None else "not read"
            item = QListWidgetItem(f"[{state}] {listed.uri}  {listed.size:,} B  {listed.digest[:19]}…")
            item.setData(_ROLE, listed.uri)
            item.setForeground(_FINDING if failed else _VERIFIED if read is not None else item.foreground())
            self.file_list.addItem(item)
            if listed.uri == keep_file:
                self.file_list.setCurrentItem(item)
        if entry.dynamic:
            self.file_list.addItem("(dynamic: the server publishes no digests; its files are unverifiable)")
        self._show_file()
        self._enable()

    def _show_file(self) -> None:
        item = self.file_list.currentItem()
        uri = item.data(_ROLE) if item is not None else None
        load = self.shelf.loads.get(self.current_uri() or "") if self.shelf is not None else None
        read = load.files.get(uri) if load is not None and isinstance(uri, str) else None
        if read is None:
            self.viewer.setPlainText("" if uri is None else f"{uri} is not read yet (nothing is read ahead of need)")
        elif read.text is not None:
            self.viewer.setPlainText(read.text)
        else:
            head = read.data[:HEX_PREVIEW]
            self.viewer.setPlainText(f"{len(read.data):,} bytes, verified ({read.digest})\n"
                                     + " ".join(f"{b:02x}" for b in head))
        self._enable()

    def _enable(self) -> None:
        shelf = self.shelf
        uri = self.current_uri()
        entry = shelf.entry(uri) if shelf is not None and uri else None
        load = shelf.loads.get(uri) if shelf is not None and uri else None
        stopped = load is not None and load.failure is not None
        self.load_button.setEnabled(entry is not None and entry.problem is None and (load is None or stopped))
        item = self.file_list.currentItem()
        self.read_button.setEnabled(load is not None and load.loaded and item is not None
                                    and isinstance(item.data(_ROLE), str))
        self.directory_button.setVisible(shelf is not None and shelf.directory_read)
        self.directory_button.setEnabled(entry is not None)
        self.refresh_button.setEnabled(shelf is not None and shelf.offered)

    # -- the user's requests ---------------------------------------------------------------------------------

    def load_skill(self) -> None:
        uri = self.current_uri()
        if self.shelf is not None and uri:
            self.finding.setText("")
            self._spawn(self.shelf.load(uri), f"loading {uri}")

    def read_file(self) -> None:
        skill, item = self.current_uri(), self.file_list.currentItem()
        uri = item.data(_ROLE) if item is not None else None
        if self.shelf is not None and skill and isinstance(uri, str) and self.read_button.isEnabled():
            self._spawn(self.shelf.read(skill, uri), f"reading {uri}")

    def read_directory(self) -> None:
        uri = self.current_uri()
        entry = self.shelf.entry(uri) if self.shelf is not None and uri else None
        if self.shelf is not None and entry is not None:
            self._spawn(self.shelf.directory(entry.uri, entry.root), f"reading {entry.root}")
