"""The Explorer's Roots page: the folders answered to the server's ``roots/list`` as file:// URIs, edited here,
kept in the server's profile, and announced to the server when they change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QListWidget, QPushButton, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from inspector.ui.explorer.shared import PageContext


class RootsPage(QWidget):
    edited = Signal(list)  #: the user changed the roots: the folders (the panel's ``roots_edited``)

    def __init__(self, explorer: PageContext) -> None:
        super().__init__()
        self.explorer = explorer
        about = QLabel("Folders the server may work in, answered to its roots/list as file:// URIs. Kept in the "
                       "server's profile; the server is told when the list changes.", self)
        about.setWordWrap(True)
        self.root_list = QListWidget(self)
        add = QPushButton("Add folder…", self)
        add.clicked.connect(self._add_root)
        remove = QPushButton("Remove", self)
        remove.clicked.connect(self._remove_root)
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(remove)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(about)
        layout.addWidget(self.root_list, 1)
        layout.addLayout(row)

    def roots(self) -> list[str]:
        return [self.root_list.item(row).text() for row in range(self.root_list.count())]

    def show_roots(self, folders: list[str]) -> None:
        """The roots the session starts with (its profile's), shown without telling anyone."""
        self.root_list.clear()
        self.root_list.addItems(folders)

    def _add_root(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "A folder the server may work in")
        if folder:
            self.set_roots([*self.roots(), folder])

    def _remove_root(self) -> None:
        row = self.root_list.currentRow()
        if row >= 0:
            folders = self.roots()
            del folders[row]
            self.set_roots(folders)

    def set_roots(self, folders: list[str]) -> None:
        """The roots are now ``folders``: shown, kept in the profile (``edited``, the Explorer's ``roots_edited``)
        and, in a live session, answered to roots/list with the server told they changed."""
        self.show_roots(folders)
        explorer = self.explorer
        self.edited.emit(list(folders))
        if explorer.catalog is not None and not explorer.catalog.session.closed:
            explorer.spawn(explorer.catalog.set_roots(folders), "telling the server the roots changed")
