"""A profile that signs in without a person, from the window: the profile dialog's grant fields (only the chosen
grant's shown, what it lacks said under the form), the client secret kept in the keyring and never in the
profile, and the session that signs in with client credentials, its steps in the Auth panel. The protected
server is servers/oauth_server.py on 127.0.0.1; no browser, and no listening port, at any time."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from auth_support import AuthServer, make_key
from helpers import until
from qt_loop import call_tool, open_test_window
from qt_loop import qloop as qloop  # the shared fixture (re-exported so pytest finds it here)
from test_oauth_loopback import own_listening_ports
from test_oauth_window import steps_shown

from inspector.core.auth.tokens import TokenStore
from inspector.core.clients.profiles import ServerProfile
from inspector.core.connect.target import Target
from inspector.ui import oauth
from inspector.ui.profiles.dialog import ProfileDialog
from inspector.ui.session.live import FAILED, READY

#: Bound on a session reaching a state, its sign-in included (a Python server on a loaded machine).
CONNECT_TIMEOUT = 30.0


def visible_labels(dialog: ProfileDialog) -> list[str]:
    form = dialog._form
    labels = []
    for row in range(form.rowCount()):
        item = form.itemAt(row, form.ItemRole.LabelRole)
        if item is not None and item.widget() is not None and form.isRowVisible(row):
            labels.append(item.widget().text())
    return labels


def test_a_client_credentials_profile_keeps_its_secret_in_the_keyring_and_signs_in_without_a_browser(
        qloop: asyncio.AbstractEventLoop, auth_server: Callable[..., AuthServer], tmp_path: Path,
        monkeypatch: Any) -> None:
    key = make_key(tmp_path / "keys")
    server = auth_server("--machine", "--registration", "pre", "--trust-key", str(key.public), "--token-auth",
                         "client_secret_basic")
    monkeypatch.setattr(oauth, "open_in_browser", lambda url: pytest_fail(f"a browser was opened for {url}"))
    # the profile, as a person fills the dialog
    dialog = ProfileDialog(None, ())
    dialog.name_edit.setText("service")
    dialog.set_kind("http")
    dialog.url_edit.setText(server.url)
    dialog.oauth_check.setChecked(True)
    assert "Client secret:" not in visible_labels(dialog)  # the code flow has no secret field
    dialog.grant_fields.grant_combo.setCurrentIndex(dialog.grant_fields.grant_combo.findData("client-credentials"))
    shown = visible_labels(dialog)
    assert {"Client secret:", "Client key file:", "Key algorithm:", "DPoP:"} <= set(shown)
    assert "Assertion file:" not in shown and "IdP token endpoint:" not in shown
    assert dialog.problem() == "A grant without a person needs the OAuth client id the authorization server knows."
    assert not dialog.ok_button.isEnabled()
    dialog.oauth_client_edit.setText("pre-client")
    assert dialog.problem() == "The client needs its secret or a client key file: it proves who it is to the " \
                               "authorization server."
    assert dialog.problem_label.text() == dialog.problem()
    dialog.grant_fields.secret_edit.setText("pre-secret-Zq81x")
    assert dialog.problem() is None and dialog.ok_button.isEnabled()
    dialog.accept()
    profile = dialog.profile()
    dialog.deleteLater()
    assert profile.oauth_grant == "client-credentials" and profile.oauth_client_id == "pre-client"
    assert "pre-secret-Zq81x" not in json.dumps(profile.to_json())  # the profile file never holds it
    assert TokenStore().load_client_secret(server.url, "pre-client") == "pre-secret-Zq81x"
    edited = ProfileDialog(profile, ())  # editing it again shows the kept secret (masked)
    assert edited.grant_fields.secret_edit.text() == "pre-secret-Zq81x" and edited.profile() == profile
    edited.deleteLater()

    async def scenario(win: Any) -> None:
        tab = win.open_live(Target.from_profile(profile))
        await until(lambda: tab.live.state in (READY, FAILED), CONNECT_TIMEOUT, "the session")
        assert tab.live.state == READY, tab.live.sentence
        call = await call_tool(tab, "whoami")
        await until(lambda: any(e.data.get("reply_to") == call.seq for e in tab.events), CONNECT_TIMEOUT,
                    "the call's result")
        assert steps_shown(tab) == [("discovery", "ok"), ("metadata", "ok"), ("registration", "ok"),
                                    ("token", "ok")]
        token = tab.auth.steps.topLevelItem(3)
        assert token.text(1) == "access token issued by the client_credentials grant (client authentication " \
                                "client_secret_basic)"
        tab.auth.steps.setCurrentItem(token)
        assert "rule: RFC 6749 section 4.4" in tab.auth.detail.toPlainText()
        assert "A token is held" in tab.auth.token_label.text()
        assert tab.auth.waiting_box.isHidden() and own_listening_ports() == {}
        tab.side.setCurrentWidget(tab.auth)
        tab.side.grab().save(str(tmp_path / "auth-client-credentials.png"))
        text = "\n".join(json.dumps(e.data) for e in tab.events)
        assert "pre-secret-Zq81x" not in text

    with open_test_window(qloop, tmp_path) as win:
        qloop.run_until_complete(scenario(win))
    [request] = [r for r in server.requests() if r["path"] == "/token"]
    assert request["form"]["grant_type"] == "client_credentials"


def test_the_dialog_shows_each_grants_own_fields_and_keeps_files_as_paths(qapp: Any, tmp_path: Path) -> None:
    profile = ServerProfile(name="idp", kind="http", url="http://127.0.0.1:9/mcp", oauth=True, oauth_client_id="app",
                            oauth_grant="id-jag", oauth_client_key=str(tmp_path / "k.pem"),
                            oauth_id_token_file=str(tmp_path / "id.jwt"), oauth_idp_issuer="https://idp.example",
                            oauth_idp_client_id="idp-app", oauth_dpop=True)
    dialog = ProfileDialog(profile, ())
    assert {"ID token file:", "IdP token endpoint:", "IdP issuer:", "IdP client id:"} <= set(visible_labels(dialog))
    assert dialog.profile() == profile and dialog.grant_fields.dpop_check.isChecked()
    combo = dialog.grant_fields.grant_combo
    combo.setCurrentIndex(combo.findData("jwt-bearer"))
    assert "Assertion file:" in visible_labels(dialog) and "IdP issuer:" not in visible_labels(dialog)
    assert dialog.problem() == "The JWT bearer grant needs the file the workload's JWT is in."
    dialog.grant_fields.assertion_edit.setText(str(tmp_path / "w.jwt"))
    changed = dialog.profile()
    assert changed.oauth_assertion_file == str(tmp_path / "w.jwt") and changed.oauth_idp_issuer == ""
    assert Target.from_profile(changed).oauth.assertion_file == str(tmp_path / "w.jwt")  # type: ignore[union-attr]
    dialog.oauth_check.setChecked(False)
    assert not combo.isEnabled() and dialog.problem() is None  # OAuth off: nothing of it is asked for
    dialog.deleteLater()


def pytest_fail(message: str) -> bool:
    import pytest

    pytest.fail(message)
