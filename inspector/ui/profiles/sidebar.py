"""The SERVERS list: saved profiles, with Add, Edit, Remove, Import… and Connect.

Every change goes through the :class:`~inspector.core.clients.profiles.ProfileStore` at once. A profiles file that
cannot be read is reported in one line above the list (it was kept aside by the store), never a crash.
Dialogs are opened window-modal without a nested event loop (``open()``, not ``exec()``), which keeps qasync
happy; the open one is in ``sidebar.dialog``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt, Signal
from PySide6.QtGui import (
    QAction,
    QFont,
    QFontMetrics,
    QKeySequence,
    QPainter,
    QPalette,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from inspector.core.clients.configs import known_config_files
from inspector.core.clients.profiles import ProfileError, ProfileStore, ServerProfile
from inspector.ui.profiles.dialog import ProfileDialog, plain_label, plain_tooltip
from inspector.ui.profiles.import_dialog import ImportDialog

SUMMARY_ROLE = Qt.ItemDataRole.UserRole + 1
PROFILE_ROLE = Qt.ItemDataRole.UserRole + 2


def _small(font: QFont) -> QFont:
    small = QFont(font)
    if font.pointSizeF() > 0:
        small.setPointSizeF(font.pointSizeF() * 0.86)
    else:
        small.setPixelSize(max(8, round(font.pixelSize() * 0.86)))
    return small


class _ProfileDelegate(QStyledItemDelegate):
    """Two plain-text lines per profile: the name, and a smaller dimmed ``stdio: command`` / ``http: url``."""

    MARGIN = 3

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        name, summary = opt.text, index.data(SUMMARY_ROLE) or ""
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)  # background, selection

        rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, widget).adjusted(
            self.MARGIN, self.MARGIN, -self.MARGIN, -self.MARGIN)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        enabled = bool(opt.state & QStyle.StateFlag.State_Enabled)
        group = QPalette.ColorGroup.Normal if enabled else QPalette.ColorGroup.Disabled
        if group == QPalette.ColorGroup.Normal and not opt.state & QStyle.StateFlag.State_Active:
            group = QPalette.ColorGroup.Inactive
        main = opt.palette.color(group, QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        dim = main if selected else opt.palette.color(group, QPalette.ColorRole.PlaceholderText)
        flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextSingleLine

        painter.save()
        name_metrics = QFontMetrics(opt.font)
        painter.setFont(opt.font)
        painter.setPen(main)
        painter.drawText(rect, flags, name_metrics.elidedText(name.replace("\n", " "), Qt.TextElideMode.ElideRight,
                                                              rect.width()))
        small = _small(opt.font)
        small_metrics = QFontMetrics(small)
        painter.setFont(small)
        painter.setPen(dim)
        line = rect.adjusted(0, name_metrics.height() + 1, 0, 0)
        painter.drawText(line, flags, small_metrics.elidedText(summary.replace("\n", " "), Qt.TextElideMode.ElideMiddle,
                                                               line.width()))
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        base = super().sizeHint(option, index)
        height = QFontMetrics(option.font).height() + QFontMetrics(_small(option.font)).height() + 1
        return QSize(base.width(), height + 2 * self.MARGIN + 4)


class _OneLineLabel(QLabel):
    """Plain text on one line, elided to the width; the whole text is in ``full_text()`` and the tooltip."""

    def __init__(self) -> None:
        super().__init__()
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._full = ""

    def set_full_text(self, text: str, details: str | None = None) -> None:
        self._full = text
        self.setToolTip(plain_tooltip(details or text) if text else "")
        self.setAccessibleName(text)
        self.setAccessibleDescription(details or "")
        self._elide()

    def full_text(self) -> str:
        return self._full

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        one_line = " ".join(self._full.split())
        self.setText(self.fontMetrics().elidedText(one_line, Qt.TextElideMode.ElideRight, max(self.width(), 40)))


class ProfilesSidebar(QWidget):
    """The saved servers. ``home`` and ``cwd`` say where Import… looks for MCP config files (tests pass a
    temporary folder); by default the user's home and the current folder."""

    connect_requested = Signal(object)  # ServerProfile
    profiles_changed = Signal()

    def __init__(self, store: ProfileStore, parent: QWidget | None = None, *, home: Path | None = None,
                 cwd: Path | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self._home = home
        self._cwd = cwd
        self._profiles: list[ServerProfile] = []
        self.dialog: QDialog | None = None  # the dialog or question box open now, if any

        title = plain_label("SERVERS")
        font = title.font()
        font.setBold(True)
        title.setFont(_small(font))
        title.setForegroundRole(QPalette.ColorRole.PlaceholderText)

        self.message_label = _OneLineLabel()
        warning = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        self._message_icon = plain_label()
        size = self.fontMetrics().height()
        self._message_icon.setPixmap(warning.pixmap(size, size))
        self._dismiss = QToolButton()
        self._dismiss.setText("×")
        self._dismiss.setToolTip("Dismiss")
        self._dismiss.setAutoRaise(True)
        self._dismiss.clicked.connect(self.clear_message)
        self._message_row = QWidget()
        message_layout = QHBoxLayout(self._message_row)
        message_layout.setContentsMargins(0, 0, 0, 0)
        message_layout.addWidget(self._message_icon)
        message_layout.addWidget(self.message_label, 1)
        message_layout.addWidget(self._dismiss)
        self._message_row.hide()

        self.list = QListWidget()
        self.list.setItemDelegate(_ProfileDelegate(self.list))
        self.list.setUniformItemSizes(True)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.list.itemDoubleClicked.connect(lambda item: self._request_connect(item))
        self.list.currentItemChanged.connect(self._update_actions)

        self.empty_label = plain_label(
            "No saved servers yet. Add one, or import them from Claude Desktop, Cursor, VS Code or Claude Code.")
        self.empty_label.setWordWrap(True)
        self.empty_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.empty_label.setMargin(4)

        # keys work where the user is: in the list (Return/Enter connects, F2 edits, Delete removes); the
        # list's context menu offers the same actions
        def action(text: str, slot: object, *keys: QKeySequence) -> QAction:
            act = QAction(text, self.list)
            act.triggered.connect(slot)
            if keys:
                act.setShortcuts(list(keys))
                act.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            self.list.addAction(act)
            return act

        self.connect_action = action("Connect", self.connect_current, QKeySequence(Qt.Key.Key_Return),
                                     QKeySequence(Qt.Key.Key_Enter))
        self.edit_action = action("Edit…", self.edit_current, QKeySequence(Qt.Key.Key_F2))
        self.remove_action = action("Remove…", self.remove_current, QKeySequence(QKeySequence.StandardKey.Delete))
        separator = QAction(self.list)
        separator.setSeparator(True)
        self.list.addAction(separator)
        self.add_action = action("Add…", self.add_profile)
        self.import_action = action("Import…", self.import_profiles)

        self.connect_button = QPushButton("Connect")
        self.connect_button.clicked.connect(self.connect_current)
        self.add_button = QPushButton("+ Add…")
        self.add_button.clicked.connect(self.add_profile)
        self.edit_button = QPushButton("Edit…")
        self.edit_button.clicked.connect(self.edit_current)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_current)
        self.import_button = QPushButton("Import…")
        self.import_button.clicked.connect(self.import_profiles)

        # Connect on a row of its own and the rest two by two: the list stays usable as narrow as two buttons
        # (at 2x on a 1920x1080 screen the window is 960 logical pixels wide, and the timeline needs them)
        connect_row = QHBoxLayout()
        connect_row.addWidget(self.connect_button, 1)
        selected_row = QHBoxLayout()
        selected_row.addWidget(self.edit_button, 1)
        selected_row.addWidget(self.remove_button, 1)
        new_row = QHBoxLayout()
        new_row.addWidget(self.add_button, 1)
        new_row.addWidget(self.import_button, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(title)
        layout.addWidget(self._message_row)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty_label, 1)  # in the list's place when there is nothing to list
        layout.addLayout(connect_row)
        layout.addLayout(selected_row)
        layout.addLayout(new_row)

        self.reload()

    # -- the list ----------------------------------------------------------------------------------------

    def reload(self, select: str | None = None) -> None:
        """Read the store again; a damaged file is reported (the store kept it aside) and what could be
        read is shown."""
        try:
            profiles = self.store.load()
        except ProfileError as exc:
            profiles = exc.salvaged
            if exc.kept_aside is not None:
                self.show_message("Could not read the saved servers (a copy was kept).", str(exc))
            else:
                self.show_message(str(exc))
        self._set_profiles(profiles, select)

    def _set_profiles(self, profiles: list[ServerProfile], select: str | None = None) -> None:
        current = select or (profile.name if (profile := self.current_profile()) else None)
        self._profiles = list(profiles)
        self.list.clear()
        for profile in self._profiles:
            item = QListWidgetItem(profile.name)
            summary = profile.redacted().summary()
            item.setData(SUMMARY_ROLE, summary)
            item.setData(PROFILE_ROLE, profile)
            item.setToolTip(plain_tooltip(f"{profile.name}\n{summary}"))
            self.list.addItem(item)
            if profile.name == current:
                self.list.setCurrentItem(item)
        if self.list.currentItem() is None and self.list.count():
            self.list.setCurrentRow(0)
        self.empty_label.setVisible(not self._profiles)
        self.list.setVisible(bool(self._profiles))
        self._update_actions()
        self.profiles_changed.emit()

    def profiles(self) -> list[ServerProfile]:
        return list(self._profiles)

    def current_profile(self) -> ServerProfile | None:
        item = self.list.currentItem()
        return item.data(PROFILE_ROLE) if item is not None else None

    def select(self, name: str) -> None:
        for row in range(self.list.count()):
            if self.list.item(row).text() == name:
                self.list.setCurrentRow(row)
                return

    def _update_actions(self, *_: object) -> None:
        has = self.list.currentItem() is not None
        for widget in (self.connect_button, self.edit_button, self.remove_button, self.connect_action,
                       self.edit_action, self.remove_action):
            widget.setEnabled(has)

    # -- messages ----------------------------------------------------------------------------------------

    def show_message(self, text: str, details: str | None = None) -> None:
        """One line above the list (elided; the whole sentence, or ``details``, is in its tooltip) until dismissed."""
        self.message_label.set_full_text(text, details)
        self._message_row.show()

    def clear_message(self) -> None:
        self.message_label.set_full_text("")
        self._message_row.hide()

    def message(self) -> str:
        """The message shown now, in full ("" if none)."""
        return self.message_label.full_text() if not self._message_row.isHidden() else ""

    def _persist(self, change: Callable[[], Any], select: str | None = None) -> bool:
        """Run a store change; on ProfileError, say so and show the file as it is."""
        try:
            result = change()
        except ProfileError as exc:
            self.show_message(str(exc))
            self.reload()
            return False
        self.reload(select if select is not None else getattr(result, "name", None))
        return True

    # -- actions -----------------------------------------------------------------------------------------

    def _open(self, dialog: QDialog, on_accept: object) -> QDialog:
        if self.dialog is not None:
            self.dialog.close()
        self.dialog = dialog
        dialog.accepted.connect(on_accept)
        dialog.finished.connect(lambda _result: self._closed(dialog))
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.open()
        return dialog

    def _closed(self, dialog: QDialog) -> None:
        if self.dialog is dialog:
            self.dialog = None
        dialog.deleteLater()

    def add_profile(self) -> ProfileDialog:
        dialog = ProfileDialog(None, [p.name for p in self._profiles], self)
        self._open(dialog, lambda: self._persist(lambda: self.store.add(dialog.profile())))
        return dialog

    def edit_current(self) -> ProfileDialog | None:
        profile = self.current_profile()
        if profile is None:
            return None
        dialog = ProfileDialog(profile, [p.name for p in self._profiles], self)
        self._open(dialog, lambda: self._persist(lambda: self.store.update(profile.name, dialog.profile())))
        return dialog

    def remove_current(self) -> QMessageBox | None:
        profile = self.current_profile()
        if profile is None:
            return None
        box = QMessageBox(QMessageBox.Icon.Question, "Remove server", "", parent=self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setText(f"Remove the saved server “{profile.name}”?")
        box.setInformativeText(profile.redacted().summary())
        box.setStandardButtons(QMessageBox.StandardButton.Cancel)
        box.addButton("Remove", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        for label in box.findChildren(QLabel):
            label.setTextFormat(Qt.TextFormat.PlainText)  # the informative text too

        def finished() -> None:
            if box.buttonRole(box.clickedButton()) == QMessageBox.ButtonRole.DestructiveRole:
                self._persist(lambda: self.store.remove(profile.name), select="")

        box.finished.connect(finished)
        box.finished.connect(lambda _result: self._closed(box))
        if self.dialog is not None:
            self.dialog.close()
        self.dialog = box
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.open()
        return box

    def import_profiles(self) -> ImportDialog:
        files = known_config_files(self._home, cwd=self._cwd)
        dialog = ImportDialog(files, home=self._home, existing_names=[p.name for p in self._profiles], parent=self)

        def accepted() -> None:
            chosen = dialog.selected_profiles()
            if chosen:
                holder: dict[str, list[ServerProfile]] = {}

                def add() -> None:
                    holder["added"] = self.store.add_many(chosen)

                if self._persist(add, select="") and holder["added"]:
                    self.select(holder["added"][0].name)

        self._open(dialog, accepted)
        return dialog

    def connect_current(self) -> None:
        self._request_connect(self.list.currentItem())

    def _request_connect(self, item: QListWidgetItem | None) -> None:
        if item is not None:
            self.connect_requested.emit(copy.deepcopy(item.data(PROFILE_ROLE)))  # the receiver's own copy
