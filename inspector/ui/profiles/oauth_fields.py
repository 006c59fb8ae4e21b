"""The profile dialog's fields for OAuth without a person: the grant, the client's secret or key file, the
assertion file of the JWT bearer grant, the enterprise IdP of an ID-JAG, DPoP.

The profile keeps paths, ids and URLs only: the client secret goes to the keyring (or this process's memory)
through :meth:`inspector.core.auth.tokens.TokenStore.save_client_secret` when the dialog is saved, and a key file
is read when a session signs in, never copied. Each field names the grants it belongs to, so the dialog shows
only those of the chosen grant.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QCheckBox, QComboBox, QFileDialog, QHBoxLayout, QLineEdit, QPushButton, QWidget

from inspector.core.clients.profiles import ServerProfile
from inspector.ui.wheel_guard import guard_wheel

#: The grants in the order the dialog offers them, each with the words it shows.
GRANT_CHOICES = (("authorization-code", "Authorization code (a person signs in, in the browser)"),
                 ("client-credentials", "Client credentials (a service, no person)"),
                 ("jwt-bearer", "JWT bearer (a workload's identity token)"),
                 ("id-jag", "ID-JAG (enterprise-managed, through the company's IdP)"))
MACHINE = frozenset({"client-credentials", "jwt-bearer", "id-jag"})


class OAuthGrantFields:
    """The widgets; :meth:`rows` says which label goes with which widget and for which grants it is shown."""

    def __init__(self, parent: QWidget) -> None:
        self.parent = parent
        self.grant_combo = guard_wheel(QComboBox())
        for grant, words in GRANT_CHOICES:
            self.grant_combo.addItem(words, grant)
        self.secret_edit = QLineEdit()
        self.secret_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.secret_edit.setPlaceholderText("(kept in the system keyring, not in the profile)")
        self.key_edit = QLineEdit()
        self.key_edit.setPlaceholderText("(instead of the secret) a PEM private key file")
        self.key_alg_edit = QLineEdit()
        self.key_alg_edit.setPlaceholderText("(from the key) ES256, RS256, PS256, Ed25519…")
        self.assertion_edit = QLineEdit()
        self.assertion_edit.setPlaceholderText("the file the workload's JWT is written to (read at each sign-in)")
        self.id_token_edit = QLineEdit()
        self.id_token_edit.setPlaceholderText("the file holding the user's ID token from the IdP")
        self.idp_endpoint_edit = QLineEdit()
        self.idp_endpoint_edit.setPlaceholderText("https://idp.example.com/oauth2/token")
        self.idp_issuer_edit = QLineEdit()
        self.idp_issuer_edit.setPlaceholderText("(instead of the endpoint) https://idp.example.com")
        self.idp_client_edit = QLineEdit()
        self.dpop_check = QCheckBox("Always send DPoP proofs (else only when a server asks for them)")
        self.pickers: list[QFileDialog] = []

    def rows(self) -> list[tuple[str, QWidget | QHBoxLayout, frozenset[str] | None]]:
        """(label, field, the grants it shows for, None: every grant) in the dialog's order."""
        return [
            ("OAuth grant:", self.grant_combo, None),
            ("Client secret:", self.secret_edit, MACHINE),
            ("Client key file:", self._with_browse(self.key_edit, "Client key (PEM)"), MACHINE),
            ("Key algorithm:", self.key_alg_edit, MACHINE),
            ("Assertion file:", self._with_browse(self.assertion_edit, "Assertion (JWT) file"),
             frozenset({"jwt-bearer"})),
            ("ID token file:", self._with_browse(self.id_token_edit, "ID token file"), frozenset({"id-jag"})),
            ("IdP token endpoint:", self.idp_endpoint_edit, frozenset({"id-jag"})),
            ("IdP issuer:", self.idp_issuer_edit, frozenset({"id-jag"})),
            ("IdP client id:", self.idp_client_edit, frozenset({"id-jag"})),
            ("DPoP:", self.dpop_check, None),
        ]

    def editors(self) -> list[Any]:
        return [self.secret_edit, self.key_edit, self.key_alg_edit, self.assertion_edit, self.id_token_edit,
                self.idp_endpoint_edit, self.idp_issuer_edit, self.idp_client_edit]

    def grant(self) -> str:
        return str(self.grant_combo.currentData() or "authorization-code")

    def set_enabled(self, on: bool) -> None:
        for widget in (self.grant_combo, self.dpop_check, *self.editors()):
            widget.setEnabled(on)

    # -- filling and reading -----------------------------------------------------------------------------------

    def fill(self, profile: ServerProfile) -> None:
        index = self.grant_combo.findData(profile.oauth_grant)
        self.grant_combo.setCurrentIndex(max(index, 0))
        self.secret_edit.setText(self._stored_secret(profile.url, profile.oauth_client_id))
        self.key_edit.setText(profile.oauth_client_key)
        self.key_alg_edit.setText(profile.oauth_client_key_alg)
        self.assertion_edit.setText(profile.oauth_assertion_file)
        self.id_token_edit.setText(profile.oauth_id_token_file)
        self.idp_endpoint_edit.setText(profile.oauth_idp_token_endpoint)
        self.idp_issuer_edit.setText(profile.oauth_idp_issuer)
        self.idp_client_edit.setText(profile.oauth_idp_client_id)
        self.dpop_check.setChecked(profile.oauth_dpop)

    def values(self, oauth: bool, client_id: str) -> dict[str, Any]:
        """The profile's fields; ValueError with a sentence when the grant lacks what it needs (only checked
        while OAuth is on)."""
        grant = self.grant()
        machine = grant in MACHINE
        values: dict[str, Any] = {
            "oauth_grant": grant, "oauth_dpop": self.dpop_check.isChecked(),
            "oauth_client_key": self.key_edit.text().strip() if machine else "",
            "oauth_client_key_alg": self.key_alg_edit.text().strip() if machine else "",
            "oauth_assertion_file": self.assertion_edit.text().strip() if grant == "jwt-bearer" else "",
            "oauth_id_token_file": self.id_token_edit.text().strip() if grant == "id-jag" else "",
            "oauth_idp_token_endpoint": self.idp_endpoint_edit.text().strip() if grant == "id-jag" else "",
            "oauth_idp_issuer": self.idp_issuer_edit.text().strip() if grant == "id-jag" else "",
            "oauth_idp_client_id": self.idp_client_edit.text().strip() if grant == "id-jag" else "",
        }
        if oauth and machine:
            problem = _grant_problem(grant, client_id, self.secret_edit.text(), values)
            if problem:
                raise ValueError(problem)
        return values

    def save_secret(self, profile: ServerProfile) -> None:
        """Keep the secret typed for the profile's client in the keyring (an emptied field forgets it)."""
        if not profile.oauth_client_id or not profile.url:
            return
        from inspector.core.auth.tokens import TokenStore

        machine = profile.oauth and profile.oauth_grant in MACHINE
        TokenStore().save_client_secret(profile.url, profile.oauth_client_id,
                                        self.secret_edit.text() if machine else None)

    @staticmethod
    def _stored_secret(url: str, client_id: str) -> str:
        if not url or not client_id:
            return ""
        from inspector.core.auth.tokens import TokenStore

        return TokenStore().load_client_secret(url, client_id) or ""

    # -- file pickers ----------------------------------------------------------------------------------------------

    def _with_browse(self, edit: QLineEdit, title: str) -> QHBoxLayout:
        button = QPushButton("Browse…")
        button.clicked.connect(lambda: self._choose_file(edit, title))
        row = QHBoxLayout()
        row.addWidget(edit, 1)
        row.addWidget(button)
        return row

    def _choose_file(self, edit: QLineEdit, title: str) -> None:
        start = edit.text().strip()
        picker = QFileDialog(self.parent, title, str(Path(start).parent) if start else "")
        picker.setFileMode(QFileDialog.FileMode.ExistingFile)
        picker.fileSelected.connect(edit.setText)
        picker.finished.connect(picker.deleteLater)
        self.pickers = [picker]
        picker.open()


def _grant_problem(grant: str, client_id: str, secret: str, values: dict[str, Any]) -> str | None:
    """What a grant without a person still needs, in the dialog's words."""
    if not client_id:
        return "A grant without a person needs the OAuth client id the authorization server knows."
    key = values["oauth_client_key"]
    if values["oauth_client_key_alg"] and not key:
        return "A key algorithm needs a client key file."
    if secret and key:
        return "Give a client secret or a client key file, not both."
    if grant in ("client-credentials", "id-jag") and not (secret or key):
        return "The client needs its secret or a client key file: it proves who it is to the authorization server."
    if grant == "jwt-bearer" and not values["oauth_assertion_file"]:
        return "The JWT bearer grant needs the file the workload's JWT is in."
    if grant == "id-jag":
        if not values["oauth_id_token_file"]:
            return "An ID-JAG needs the file holding the user's ID token."
        if not (values["oauth_idp_token_endpoint"] or values["oauth_idp_issuer"]):
            return "An ID-JAG needs the IdP's token endpoint (or its issuer)."
    return None
