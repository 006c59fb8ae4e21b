"""Import servers from the MCP config files of Claude Desktop, Cursor, VS Code and Claude Code.

The dialog previews what a file holds (secrets hidden in the preview, imported as they are), lets the user
uncheck servers, lists the entries that cannot be imported and why, and adds nothing itself:
:meth:`ImportDialog.selected_profiles` is what the caller saves after the user pressed Import.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QListWidget,
    QPlainTextEdit,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from inspector.core.clients.configs import (
    ConfigError,
    ImportPreview,
    known_config_files,
    read_config,
)
from inspector.core.clients.profiles import ServerProfile
from inspector.ui.profiles.dialog import plain_label, plain_tooltip

CHOOSE_FILE = "Choose file…"
COLUMNS = ("Name", "Kind", "Command / URL", "Note")
MAX_WIDTHS = (220, 110, 320)


def _short_path(path: Path, home: Path | None) -> str:
    if home is not None:
        try:
            return "~/" + path.relative_to(home).as_posix()
        except ValueError:
            pass
    return str(path)


def _kind_and_target(profile: ServerProfile) -> tuple[str, str]:
    if profile.kind == "stdio":
        return "stdio", shlex.join(profile.argv())
    return ("http" if profile.transport == "auto" else f"http ({profile.transport})"), profile.url


def describe(profile: ServerProfile, note: str | None = None) -> str:
    """Everything that will be imported, for the details pane (pass a redacted profile)."""
    kind, target = _kind_and_target(profile)
    lines = [f"{profile.name}   [{kind}]"]
    if profile.kind == "stdio":
        lines.append(f"command:  {target}")
        if profile.cwd:
            lines.append(f"folder:   {profile.cwd}")
        lines += [f"env:      {k}={v}" for k, v in profile.env.items()]
    else:
        lines.append(f"url:      {target}")
        lines += [f"header:   {k}: {v}" for k, v in profile.headers.items()]
    if note:
        lines.append(f"note:     {note}")
    return "\n".join(lines)


class ImportDialog(QDialog):
    """``known_files`` defaults to :func:`known_config_files` for ``home``; ``existing_names`` are the names
    already saved (a clash is noted: the import gets a number)."""

    def __init__(self, known_files: Iterable[tuple[str, Path]] | None = None, *, home: Path | None = None,
                 existing_names: Iterable[str] = (), parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import servers")
        self.resize(880, 560)
        self._home = home if home is not None else Path.home()
        self._existing = set(existing_names)
        self.preview: ImportPreview | None = None
        self._notes: list[str] = []
        self.file_picker: QFileDialog | None = None
        self._last_index = 0
        self._choose_item_added = False

        self.source_combo = QComboBox()
        self.source_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.source_combo.setMinimumContentsLength(40)
        files = list(known_files) if known_files is not None else known_config_files(home)
        for client, path in files:
            self._add_source(client, Path(path))
        self.source_combo.addItem(CHOOSE_FILE, None)
        self._choose_item_added = True
        source_row = QHBoxLayout()
        source_row.addWidget(plain_label("From:"))
        source_row.addWidget(self.source_combo, 1)

        self.status_label = plain_label()
        self.status_label.setWordWrap(True)
        self._status_icon = plain_label()
        size = self.fontMetrics().height()
        self._status_icon.setPixmap(
            self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning).pixmap(size, size))
        self._status_icon.hide()
        status_row = QHBoxLayout()
        status_row.addWidget(self._status_icon, 0, Qt.AlignmentFlag.AlignTop)
        status_row.addWidget(self.status_label, 1)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.itemChanged.connect(self._update_button)
        self.table.currentCellChanged.connect(self._show_details)

        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.details.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.details.setPlaceholderText("Select a server to see everything that will be imported.")
        self.details.setFixedHeight(self.details.fontMetrics().lineSpacing() * 6 + 12)

        self.skipped_label = plain_label("Not imported:")
        self.skipped_list = QListWidget()
        self.secrets_label = plain_label(
            "Secret-looking values are hidden here; they are imported as they are, since the server needs them.")
        self.secrets_label.setWordWrap(True)
        self.secrets_label.setEnabled(False)  # drawn dimmed: a footnote

        self.button_box = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.import_button = self.button_box.addButton("Import", QDialogButtonBox.ButtonRole.AcceptRole)
        self.import_button.setDefault(True)
        self.button_box.accepted.connect(self.accept)
        self.button_box.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(source_row)
        layout.addLayout(status_row)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.details)
        layout.addWidget(self.skipped_label)
        layout.addWidget(self.skipped_list)
        layout.addWidget(self.secrets_label)
        layout.addWidget(self.button_box)

        self.source_combo.activated.connect(self._source_changed)
        if files:
            self._source_changed(0)
        else:
            self._show(None, "No MCP config files were found in the usual places. Choose a file to import from.")

    # -- sources -----------------------------------------------------------------------------------------

    def _add_source(self, client: str, path: Path) -> int:
        index = self.source_combo.count() - (1 if self._choose_item_added else 0)
        self.source_combo.insertItem(index, f"{client} — {_short_path(path, self._home)}", str(path))
        self.source_combo.setItemData(index, plain_tooltip(str(path)), Qt.ItemDataRole.ToolTipRole)
        return index

    def _source_changed(self, index: int) -> None:
        data = self.source_combo.itemData(index)
        if data is None:
            self._choose_file()
            return
        self._last_index = index
        self.load_file(Path(data))

    def _choose_file(self) -> None:
        picker = QFileDialog(self, "Import servers from an MCP config file", str(self._home))
        picker.setFileMode(QFileDialog.FileMode.ExistingFile)
        picker.setNameFilters(["MCP config files (*.json *.jsonc)", "All files (*)"])
        picker.fileSelected.connect(self.choose_file)
        picker.rejected.connect(self._restore_source)
        picker.finished.connect(picker.deleteLater)
        self.file_picker = picker
        picker.open()

    def choose_file(self, path: str | Path) -> None:
        """Add ``path`` to the sources (if new) and preview it."""
        path = Path(path)
        index = self.source_combo.findData(str(path))
        if index < 0:
            index = self._add_source("File", path)
        self.source_combo.setCurrentIndex(index)
        self._last_index = index
        self.load_file(path)

    def _restore_source(self) -> None:
        self.source_combo.setCurrentIndex(self._last_index)

    # -- preview -----------------------------------------------------------------------------------------

    def load_file(self, path: Path) -> None:
        try:
            preview = read_config(path)
        except ConfigError as exc:
            self._show(None, str(exc), error=True)
            return
        count = len(preview.candidates)
        status = f"{preview.client}: {count} server{'s' if count != 1 else ''} to import"
        if preview.skipped:
            status += f", {len(preview.skipped)} that cannot be"
        self._show(preview, status + ".")

    def _show(self, preview: ImportPreview | None, status: str, *, error: bool = False) -> None:
        self.preview = preview
        self.status_label.setText(status)
        self._status_icon.setVisible(error)
        self._notes = []
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        candidates = preview.candidates if preview else []
        self.table.setRowCount(len(candidates))
        for row, candidate in enumerate(candidates):
            kind, target = _kind_and_target(candidate.profile.redacted())
            note = candidate.note or ""
            if candidate.profile.name in self._existing:
                clash = "a saved server has this name; this one will get a number"
                note = f"{clash}; {note}" if note else clash
            self._notes.append(note)
            cells = (candidate.profile.name, kind, target, note)
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
                if text:
                    item.setToolTip(plain_tooltip(text))
                self.table.setItem(row, column, item)
            first = self._check_cell(row)
            first.setFlags(first.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            first.setCheckState(Qt.CheckState.Checked)
        self.table.blockSignals(False)
        self.table.resizeColumnsToContents()
        for column, width in enumerate(MAX_WIDTHS):
            self.table.setColumnWidth(column, min(self.table.columnWidth(column) + 8, width))
        if candidates:
            self.table.setCurrentCell(0, 0)
        self._show_details(self.table.currentRow())
        self.details.setVisible(bool(candidates))
        skipped = preview.skipped if preview else []
        self.skipped_list.clear()
        for name, reason in skipped:
            self.skipped_list.addItem(f"{name} — {reason}")
        if skipped:
            lines = min(len(skipped), 4)
            self.skipped_list.setFixedHeight(self.skipped_list.sizeHintForRow(0) * lines
                                             + 2 * self.skipped_list.frameWidth() + 6)
        self.skipped_label.setVisible(bool(skipped))
        self.skipped_list.setVisible(bool(skipped))
        self._update_button()

    def _show_details(self, row: int, *_: object) -> None:
        if self.preview is None or not 0 <= row < len(self.preview.candidates):
            self.details.clear()
            return
        candidate = self.preview.candidates[row]
        self.details.setPlainText(describe(candidate.profile.redacted(), self._notes[row] or None))

    def _check_cell(self, row: int) -> QTableWidgetItem:
        """The first cell of ``row``: it holds the row's check box (every row has one)."""
        item = self.table.item(row, 0)
        assert item is not None
        return item

    def set_checked(self, row: int, checked: bool) -> None:
        self._check_cell(row).setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def selected_profiles(self) -> list[ServerProfile]:
        """The checked servers, with their secrets (not the redacted preview)."""
        if self.preview is None:
            return []
        return [candidate.profile for row, candidate in enumerate(self.preview.candidates)
                if self._check_cell(row).checkState() == Qt.CheckState.Checked]

    def _update_button(self, *_: object) -> None:
        count = len(self.selected_profiles())
        self.import_button.setEnabled(count > 0)
        self.import_button.setText(f"Import {count}" if count else "Import")
