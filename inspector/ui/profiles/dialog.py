"""Create or edit a server profile: a command to run (stdio) or a URL to connect to (HTTP).

Every field is checked as it is typed; OK stays disabled while something is wrong and the reason is shown
under the form. All text is plain: nothing the user or a config file wrote is ever read as rich text.
"""

from __future__ import annotations

import html
import shlex
from collections.abc import Iterable
from dataclasses import replace
from urllib.parse import urlsplit

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from inspector.core.clients.profiles import MAX_TIMEOUT, ProfileError, ServerProfile
from inspector.ui.profiles.oauth_fields import OAuthGrantFields
from inspector.ui.wheel_guard import guard_wheel

# inspector.core.transports.http_common imports httpx: it is imported when a dialog needs it, not when the
# window starts (benchmarks/startup.py)


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A QLabel that never interprets its text as rich text."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


def plain_tooltip(text: str) -> str:
    """Tooltips guess rich text from the content; wrap escaped text so it is always shown literally."""
    return '<p style="white-space:pre">' + html.escape(text) + "</p>"


def parse_env_lines(text: str) -> dict[str, str]:
    """``KEY=VALUE`` lines (blank lines and ``# comments`` ignored); ValueError with a sentence otherwise."""
    env: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, value = line.partition("=")
        name = name.strip()
        if not sep:
            raise ValueError(f"Environment line {number} must look like NAME=value.")
        if not name or any(c.isspace() for c in name) or "\0" in name + value:
            raise ValueError(f"Environment line {number}: {name!r} is not a valid variable name.")
        if name in env:
            raise ValueError(f"Environment line {number}: {name} is set twice.")
        env[name] = value
    return env


def parse_header_lines(text: str) -> dict[str, str]:
    """``Name: value`` lines; ValueError with a sentence otherwise."""
    from inspector.core.transports.http_common import HeaderError, parse_header

    headers: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            name, value = parse_header(line)
        except HeaderError as exc:
            raise ValueError(f"Header line {number}: {exc.detail}.") from None
        if name.lower() in (h.lower() for h in headers):
            raise ValueError(f"Header line {number}: {name} is given twice.")
        headers[name] = value
    return headers


def _monospace(edit: QWidget) -> None:
    edit.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))


def _text_box(placeholder: str) -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setPlaceholderText(placeholder)
    box.setTabChangesFocus(True)
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    _monospace(box)
    box.setFixedHeight(box.fontMetrics().lineSpacing() * 5 + 12)
    return box


class ProfileDialog(QDialog):
    """``profile`` to edit (None for a new one); ``taken_names`` are the other profiles' names."""

    def __init__(self, profile: ServerProfile | None = None, taken_names: Iterable[str] = (),
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._original = profile
        self._taken = {n for n in taken_names if profile is None or n != profile.name}
        self.setWindowTitle("Edit server" if profile else "Add server")
        self.setMinimumWidth(520)

        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("my-server")
        self.stdio_button = QRadioButton("Command (stdio)")
        self.http_button = QRadioButton("URL (HTTP)")
        self._kind_group = QButtonGroup(self)
        self._kind_group.addButton(self.stdio_button)
        self._kind_group.addButton(self.http_button)
        kind_row = QHBoxLayout()
        kind_row.addWidget(self.stdio_button)
        kind_row.addWidget(self.http_button)
        kind_row.addStretch(1)

        # stdio
        self.command_edit = QLineEdit()
        self.command_edit.setPlaceholderText("python, npx, uvx, /path/to/server")
        self.args_edit = QLineEdit()
        self.args_edit.setPlaceholderText("-m my_server --verbose   (quote arguments with spaces)")
        _monospace(self.command_edit)
        _monospace(self.args_edit)
        self.cwd_edit = QLineEdit()
        self.cwd_edit.setPlaceholderText("(the inspector's own folder)")
        self.cwd_button = QPushButton("Browse…")
        self.cwd_button.clicked.connect(self._choose_cwd)
        self.folder_picker: QFileDialog | None = None
        cwd_row = QHBoxLayout()
        cwd_row.addWidget(self.cwd_edit, 1)
        cwd_row.addWidget(self.cwd_button)
        self.env_edit = _text_box("API_KEY=…\nDEBUG=1")

        # http
        self.url_edit = QLineEdit()
        self.url_edit.setPlaceholderText("http://127.0.0.1:8000/mcp")
        self.transport_combo = guard_wheel(QComboBox())
        from inspector.core.transports.registry import url_transports

        for name in url_transports():
            self.transport_combo.addItem(name, name)
        self.headers_edit = _text_box("Authorization: Bearer …")
        self.oauth_check = QCheckBox("Sign in with OAuth on 401")
        self.oauth_check.setToolTip(plain_tooltip("OAuth 2.1: discovery, registration, PKCE and the browser, or a "
                                                  "grant without a person; the Auth tab of the session shows each "
                                                  "step."))
        self.grant_fields = OAuthGrantFields(self)
        self.oauth_client_edit = QLineEdit()
        self.oauth_client_edit.setPlaceholderText("(none: registered automatically)")
        self.oauth_scope_edit = QLineEdit()
        self.oauth_scope_edit.setPlaceholderText("(the server's challenge, else what it supports)")
        self.token_label = plain_label()
        self.token_label.setWordWrap(True)
        self.logout_button = QPushButton("Log out")
        self.logout_button.setToolTip(plain_tooltip("Forget the tokens held for this URL (keyring and memory)."))
        self.logout_button.clicked.connect(self.log_out)
        token_row = QHBoxLayout()
        token_row.addWidget(self.token_label, 1)
        token_row.addWidget(self.logout_button, 0, Qt.AlignmentFlag.AlignTop)

        # both kinds
        self.timeout_spin = guard_wheel(QDoubleSpinBox())
        self.timeout_spin.setRange(0.5, MAX_TIMEOUT)
        self.timeout_spin.setDecimals(1)
        self.timeout_spin.setSuffix(" s")
        self.timeout_spin.setToolTip(plain_tooltip("How long to wait for the handshake and for each response "
                                                   "(progress notifications restart the clock)."))
        self.agent_secrets_check = QCheckBox("Let coding agents see this server's secrets")
        self.agent_secrets_check.setToolTip(plain_tooltip(
            "The agent seat (mcp-inspector mcp) hides this server's secrets (secret flags, environment\n"
            "variables and headers, URL credentials) in everything it gives a coding agent.\n"
            "Tick this to give them to the agent as they are. Captures stay redacted either way."))

        # one form, so every label lines up; the rows of the other kind are hidden
        self._form = form = QFormLayout()
        form.addRow(plain_label("Name:"), self.name_edit)
        form.addRow(plain_label("Connects with:"), kind_row)
        self._stdio_rows = [
            self._row(plain_label("Command:"), self.command_edit),
            self._row(plain_label("Arguments:"), self.args_edit),
            self._row(plain_label("Working folder:"), cwd_row),
            self._row(plain_label("Environment:"), self.env_edit),
        ]
        self._http_rows = [
            self._row(plain_label("URL:"), self.url_edit),
            self._row(plain_label("Transport:"), self.transport_combo),
            self._row(plain_label("Headers:"), self.headers_edit),
            self._row(plain_label("OAuth:"), self.oauth_check),
            self._row(plain_label("OAuth client id:"), self.oauth_client_edit),
        ]
        #: rows shown only for some grants (the others are shown for every grant)
        self._grant_rows: dict[int, frozenset[str]] = {}
        for label, field, grants in self.grant_fields.rows():
            row = self._row(plain_label(label), field)
            self._http_rows.append(row)
            if grants is not None:
                self._grant_rows[row] = grants
        self._http_rows += [self._row(plain_label("OAuth scope:"), self.oauth_scope_edit),
                            self._row(plain_label("OAuth token:"), token_row)]
        form.addRow(plain_label("Response timeout:"), self.timeout_spin)
        form.addRow(plain_label("Coding agents:"), self.agent_secrets_check)

        self._problem_icon = plain_label()
        icon = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        size = self.fontMetrics().height()
        self._problem_icon.setPixmap(icon.pixmap(size, size))
        self.problem_label = plain_label()
        self.problem_label.setWordWrap(True)
        problem_row = QHBoxLayout()
        problem_row.addWidget(self._problem_icon, 0, Qt.AlignmentFlag.AlignTop)
        problem_row.addWidget(self.problem_label, 1)

        self.button_box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.button_box.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Save")
        self.button_box.accepted.connect(self.accept)
        self.button_box.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addStretch(1)
        layout.addLayout(problem_row)
        layout.addWidget(self.button_box)

        self._fill(profile or ServerProfile(name="", kind="stdio"))
        for edit in (self.name_edit, self.command_edit, self.args_edit, self.cwd_edit, self.url_edit,
                     self.oauth_client_edit, self.oauth_scope_edit, *self.grant_fields.editors()):
            edit.textChanged.connect(self._revalidate)
        self.grant_fields.grant_combo.currentIndexChanged.connect(self._kind_changed)
        self.url_edit.textChanged.connect(self._show_token)
        self.oauth_check.toggled.connect(self._revalidate)
        self.oauth_check.toggled.connect(self._oauth_toggled)
        self._oauth_toggled(self.oauth_check.isChecked())
        for box in (self.env_edit, self.headers_edit):
            box.textChanged.connect(self._revalidate)
        self.transport_combo.currentIndexChanged.connect(self._revalidate)
        self._kind_group.buttonToggled.connect(self._kind_changed)
        self._kind_changed()
        self.name_edit.setFocus()

    # -- filling and reading -------------------------------------------------------------------------------

    def _fill(self, profile: ServerProfile) -> None:
        self.name_edit.setText(profile.name)
        (self.http_button if profile.kind == "http" else self.stdio_button).setChecked(True)
        self.command_edit.setText(profile.command)
        self.args_edit.setText(shlex.join(profile.args))
        self.cwd_edit.setText(profile.cwd or "")
        self.env_edit.setPlainText("\n".join(f"{k}={v}" for k, v in profile.env.items()))
        self.url_edit.setText(profile.url)
        index = self.transport_combo.findData(profile.transport)
        if index < 0:  # a plug-in that is no longer installed: keep the choice, say so
            self.transport_combo.addItem(f"{profile.transport} (not installed)", profile.transport)
            index = self.transport_combo.count() - 1
        self.transport_combo.setCurrentIndex(index)
        self.headers_edit.setPlainText("\n".join(f"{k}: {v}" for k, v in profile.headers.items()))
        self.oauth_check.setChecked(profile.oauth)
        self.oauth_client_edit.setText(profile.oauth_client_id)
        self.oauth_scope_edit.setText(profile.oauth_scope)
        self.grant_fields.fill(profile)
        self._show_token()
        self.timeout_spin.setValue(profile.timeout)
        self.agent_secrets_check.setChecked(profile.agent_sees_secrets)
        for edit in (self.name_edit, self.command_edit, self.args_edit, self.cwd_edit, self.url_edit):
            edit.setCursorPosition(0)  # show the start of a long command line, not its end

    def kind(self) -> str:
        return "http" if self.http_button.isChecked() else "stdio"

    def set_kind(self, kind: str) -> None:
        (self.http_button if kind == "http" else self.stdio_button).setChecked(True)

    def _row(self, label: QLabel, field: QWidget | QHBoxLayout) -> int:
        self._form.addRow(label, field)
        return self._form.rowCount() - 1

    def _kind_changed(self, *_: object) -> None:
        http = self.kind() == "http"
        for row in self._stdio_rows:
            self._form.setRowVisible(row, not http)
        grant = self.grant_fields.grant()
        for row in self._http_rows:
            self._form.setRowVisible(row, http and grant in self._grant_rows.get(row, (grant,)))
        self._revalidate()

    def problem(self) -> str | None:
        """Why the form cannot be saved yet, as a sentence, or None."""
        try:
            self._build()
        except (ValueError, ProfileError) as exc:
            return str(exc)
        return None

    def _build(self) -> ServerProfile:
        name = self.name_edit.text().strip()
        if not name:
            raise ValueError("Give the server a name.")
        if name in self._taken:
            raise ValueError(f"A server named {name!r} already exists; choose another name.")
        source = self._original.source if self._original else None
        if self.kind() == "stdio":
            command = self.command_edit.text().strip()
            if not command:
                raise ValueError("Enter the command that starts the server.")
            try:
                args = shlex.split(self.args_edit.text())
            except ValueError as exc:
                raise ValueError(f"The arguments cannot be split: {exc} (check the quotes).") from None
            env = parse_env_lines(self.env_edit.toPlainText())
            return self._with_the_rest(ServerProfile(
                name=name, kind="stdio", command=command, args=args, env=env,
                cwd=self.cwd_edit.text().strip() or None, source=source, timeout=self.timeout_spin.value()))
        url = self.url_edit.text().strip()
        if not url:
            raise ValueError("Enter the server's URL.")
        from inspector.core.transports.http_common import UrlError, check_url

        try:
            check_url(url)
        except UrlError as exc:
            raise ValueError(f"The URL {exc.detail}.") from None
        transport = self.transport_combo.currentData() or "auto"
        if urlsplit(url).scheme in ("ws", "wss") and transport in ("auto", "streamable-http", "sse"):
            hint = "" if self.transport_combo.findData("websocket") >= 0 else \
                " (install it with: pip install 'mcp-inspector-desktop[websocket]')"
            raise ValueError(f"A ws:// or wss:// URL needs the websocket transport{hint}.")
        headers = parse_header_lines(self.headers_edit.toPlainText())
        client_id = self.oauth_client_edit.text().strip()
        grant = self.grant_fields.values(self.oauth_check.isChecked(), client_id)
        return self._with_the_rest(ServerProfile(
            name=name, kind="http", url=url, transport=transport, headers=headers, source=source,
            timeout=self.timeout_spin.value(), oauth=self.oauth_check.isChecked(), oauth_client_id=client_id,
            oauth_scope=" ".join(self.oauth_scope_edit.text().split()), **grant))

    def _with_the_rest(self, profile: ServerProfile) -> ServerProfile:
        """``profile`` with the fields of both kinds the form does not type: the agent seat's checkbox, and what
        the form has no field for, kept as it was (the roots of Session > Roots, the drift check's tool
        baseline), so saving an edit never drops them."""
        kept = self._original
        return replace(profile, agent_sees_secrets=self.agent_secrets_check.isChecked(),
                       roots=list(kept.roots) if kept else [], baseline=kept.baseline if kept else "")

    def profile(self) -> ServerProfile:
        """The profile the form describes; ProfileError if the form is not valid (OK is disabled then)."""
        try:
            return self._build()
        except ValueError as exc:
            raise ProfileError(str(exc)) from None

    def _revalidate(self, *_: object) -> None:
        problem = self.problem()
        self.ok_button.setEnabled(problem is None)
        self.problem_label.setText(problem or "")
        self._problem_icon.setVisible(problem is not None)

    def accept(self) -> None:
        if self.problem() is None:
            profile = self._build()
            if profile.kind == "http":
                self.grant_fields.save_secret(profile)  # the keyring's, never the profile file's
            super().accept()

    # -- OAuth tokens -------------------------------------------------------------------------------------

    def _oauth_toggled(self, on: bool) -> None:
        self.oauth_client_edit.setEnabled(on)
        self.oauth_scope_edit.setEnabled(on)
        self.grant_fields.set_enabled(on)

    def _show_token(self, *_: object) -> None:
        """Whether a token is held for the URL as typed, and when it expires (the OS keyring, else this
        process's memory: :mod:`inspector.core.auth.tokens`)."""
        from inspector.core.auth.tokens import TokenStore
        from inspector.ui.panels.auth import describe_token

        url = self.url_edit.text().strip()
        store = TokenStore()
        held = store.holds(url) if url else None
        where = {"keyring": " It is kept in the system keyring.", "memory": " It is kept in memory until the "
                 "inspector quits (no keyring here)."}[store.backend] if held is not None else ""
        self.token_label.setText(describe_token(held) + where)
        self.logout_button.setEnabled(held is not None)

    def log_out(self) -> None:
        """Forget every token and registration held for the URL."""
        from inspector.core.auth.tokens import TokenStore

        url = self.url_edit.text().strip()
        if url:
            TokenStore().forget(url)
        self._show_token()

    # -- folder picker ----------------------------------------------------------------------------------

    def _choose_cwd(self) -> None:
        picker = QFileDialog(self, "Working folder", self.cwd_edit.text().strip())
        picker.setFileMode(QFileDialog.FileMode.Directory)
        picker.setOption(QFileDialog.Option.ShowDirsOnly, True)
        picker.fileSelected.connect(self.cwd_edit.setText)
        picker.finished.connect(picker.deleteLater)
        self.folder_picker = picker
        picker.open()
