"""Signing in to an OAuth-protected server from the window: the system browser (played by the test: another
thread that GETs the authorization URL, which the test authorization server approves at once, and follows the
redirect to the loopback listener), the pasted redirect URL, a refused flow, and the Auth panel that shows it
all. The protected server is servers/oauth_server.py on 127.0.0.1; no listening port before or after."""

from __future__ import annotations

import asyncio
import os
import shlex
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import httpx
import pytest
from auth_support import AuthServer
from helpers import until
from PySide6.QtGui import QGuiApplication
from qt_loop import call_tool, open_test_window
from qt_loop import qloop as qloop  # the shared fixture (re-exported so pytest finds it here)
from test_oauth_loopback import own_listening_ports

from inspector.core.auth.model import OAuthOptions, TokenSet
from inspector.core.auth.tokens import TokenStore
from inspector.core.clients.profiles import ServerProfile
from inspector.core.connect.target import Target
from inspector.ui import oauth
from inspector.ui.main_window import NO_PORT
from inspector.ui.profiles.dialog import ProfileDialog
from inspector.ui.session.live import CLOSED, FAILED, READY

#: Bound on a session reaching a state, a login included (a Python server on a loaded machine).
CONNECT_TIMEOUT = 30.0
#: Bound on the played browser's requests.
BROWSER_TIMEOUT = 10.0
#: A profile's response timeout far shorter than a person's login (which must not be cut by it).
SHORT_TIMEOUT = 0.5


class PlayedBrowser:
    """Stands in for the system browser: each URL it is asked to open is visited from another thread (a
    browser is another program), following redirects, so the authorization server's redirect reaches the
    loopback listener. ``visit=False``: it opens nothing (the person will paste)."""

    def __init__(self, visit: bool = True) -> None:
        self.visit = visit
        self.opened: list[str] = []
        self.ports_while_waiting: list[dict[int, str]] = []
        self.final: list[tuple[int, str]] = []  # the status and URL of each visit's last page
        self.threads: list[threading.Thread] = []

    def __call__(self, url: str) -> bool:
        self.opened.append(url)
        self.ports_while_waiting.append(own_listening_ports())
        if self.visit:
            thread = threading.Thread(target=self._visit, args=(url,), daemon=True)
            self.threads.append(thread)
            thread.start()
        return True

    def _visit(self, url: str) -> None:
        with httpx.Client(trust_env=False, timeout=BROWSER_TIMEOUT, follow_redirects=True) as client:
            page = client.get(url)
            self.final.append((page.status_code, str(page.url)))

    def join(self) -> None:
        for thread in self.threads:
            thread.join(BROWSER_TIMEOUT)


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., PlayedBrowser]]:
    played: list[PlayedBrowser] = []

    def make(visit: bool = True) -> PlayedBrowser:
        played.append(PlayedBrowser(visit))
        monkeypatch.setattr(oauth, "open_in_browser", played[-1])
        return played[-1]

    yield make
    for one in played:
        one.join()


def steps_shown(tab: Any) -> list[tuple[str, str]]:
    """(step, outcome) of each row of the tab's Auth panel, as its mark and tooltip say."""
    from inspector.ui.panels.auth import OUTCOMES

    tree = tab.auth.steps
    rows = []
    for i in range(tree.topLevelItemCount()):
        item = tree.topLevelItem(i)
        name, outcome = item.toolTip(0).split(": ")
        assert item.text(0) == f"{OUTCOMES[outcome][0]} {name}"
        rows.append((name, outcome))
    return rows


def open_protected(win: Any, server: AuthServer) -> Any:
    return win.open_live(Target(name="protected", url=server.url, oauth=OAuthOptions(), timeout=10.0))


def test_the_window_signs_in_through_the_system_browser_and_the_auth_panel_shows_each_step(
        qloop: asyncio.AbstractEventLoop, auth_server: Callable[..., AuthServer], browser: Callable[..., PlayedBrowser],
        tmp_path: Path) -> None:
    server = auth_server()
    played = browser()
    assert own_listening_ports() == {}

    async def scenario(win: Any) -> None:
        tab = open_protected(win, server)
        await until(lambda: tab.live.state in (READY, FAILED), CONNECT_TIMEOUT, "the session")
        assert tab.live.state == READY, tab.live.sentence
        # the browser was sent to the authorization endpoint, with the loopback listener as the redirect URI
        [url] = played.opened
        assert url.startswith(f"http://127.0.0.1:{server.port}/authorize?")
        [ports] = played.ports_while_waiting
        [(port, address)] = ports.items()
        assert address == "0100007F" and f"redirect_uri=http%3A%2F%2F127.0.0.1%3A{port}%2Fcallback" in url
        await until(lambda: bool(played.final), BROWSER_TIMEOUT, "the browser's last page")
        [(status, last)] = played.final
        assert status == 200 and last.startswith(f"http://127.0.0.1:{port}/callback?code=")
        # the session works with the token: a call, answered
        call = await call_tool(tab, "whoami")
        await until(lambda: any(e.data.get("reply_to") == call.seq for e in tab.events), CONNECT_TIMEOUT,
                    "the call's result")
        answer = next(e for e in tab.events if e.data.get("reply_to") == call.seq)
        assert b"scopes: mcp:read" in answer.raw
        # copied as a command, the call keeps --oauth: without it the command met a 401 (issue 27)
        assert tab.timeline.select_seq(call.seq) and tab.copier.copy("command")
        copied = shlex.split(QGuiApplication.clipboard().text())
        assert copied[copied.index("--url"):] == ["--url", server.url, "--oauth"], copied
        shown = steps_shown(tab)
        assert [name for name, _ in shown] == ["discovery", "metadata", "registration", "authorize", "authorize",
                                               "token"]
        assert all(outcome == "ok" for _, outcome in shown)
        assert "A token is held; it expires at" in tab.auth.token_label.text() and tab.auth.logout_button.isEnabled()
        assert tab.auth.waiting_box.isHidden()
        tab.side.setCurrentWidget(tab.auth)
        tab.auth.steps.setCurrentItem(tab.auth.steps.topLevelItem(0))
        assert tab.side.grab().save(str(tmp_path / "auth.png"))  # a picture to look at, in this test's own folder
        # the profile dialog of that URL says a token is held, and for how long
        dialog = ProfileDialog(ServerProfile(name="protected", kind="http", url=server.url, oauth=True), ())
        assert dialog.token_label.text().startswith("A token is held; it expires at ")
        assert "in 59 min" in dialog.token_label.text() or "in 1 h 0 min" in dialog.token_label.text()
        assert dialog.logout_button.isEnabled()
        dialog.deleteLater()
        # Log out forgets the tokens
        tab.auth.logout_button.click()
        assert tab.auth.token_label.text() == "No token held." and steps_shown(tab)[-1] == ("logout", "ok")
        assert not tab.auth.logout_button.isEnabled()
        assert TokenStore().holds(server.url) is None
        # the next call signs in again; once it has, the status line no longer says it waits for the login
        # (it kept "waiting for you to log in" after the second sign-in, issue 27)
        again = await call_tool(tab, "whoami")
        await until(lambda: any(e.data.get("reply_to") == again.seq for e in tab.events), CONNECT_TIMEOUT,
                    "the call's result after the second sign-in")
        assert len(played.opened) == 2 and tab.live.state == READY
        # with the client registered at the first login (issue 39: each re-login registered one more), on the
        # listener's new port (RFC 8252 section 7.3)
        registrations = [step for step in tab.auth.login.client.steps if step.name == "registration"]
        assert len(registrations) == 2 and "reusing the client" in registrations[1].sentence, registrations
        assert played.opened[1].split("redirect_uri=")[1] != played.opened[0].split("redirect_uri=")[1]
        assert oauth.WAITING not in tab.status.text() and "waiting for you" not in tab.status.text(), \
            tab.status.text()

    with open_test_window(qloop, tmp_path) as win:
        qloop.run_until_complete(scenario(win))
    assert own_listening_ports() == {}


def test_a_pasted_redirect_url_completes_the_login_and_closes_the_listener(
        qloop: asyncio.AbstractEventLoop, auth_server: Callable[..., AuthServer], browser: Callable[..., PlayedBrowser],
        tmp_path: Path) -> None:
    server = auth_server()
    played = browser(visit=False)  # the browser cannot come back (another machine, a strict firewall)

    async def scenario(win: Any) -> None:
        # a saved profile that signs in with OAuth, connected as from the sidebar
        # its response timeout is short: a person's time in the browser must not count against it
        tab = win.open_live(Target.from_profile(ServerProfile(name="protected", kind="http", url=server.url,
                                                              oauth=True, timeout=SHORT_TIMEOUT)))
        await until(lambda: tab.live.login.is_waiting, CONNECT_TIMEOUT, "the login to wait")
        began = time.monotonic()
        await until(lambda: time.monotonic() - began > 4 * SHORT_TIMEOUT or not tab.live.login.is_waiting,
                    CONNECT_TIMEOUT, "the person to take longer than the response timeout")
        assert tab.live.login.is_waiting and tab.live.state not in (READY, FAILED), tab.live.sentence
        assert tab.live.sentence.startswith("waiting for you to log in in your browser")
        assert tab.side.currentWidget() is tab.auth and not tab.auth.waiting_box.isHidden()
        assert tab.auth.address.text() == played.opened[0]
        [port] = own_listening_ports()
        assert win.statusBar().currentMessage().startswith(f"Listening on 127.0.0.1:{port} for the sign-in's "
                                                           "redirect only"), "the window says it listens, and where"
        assert tab.side.grab().save(str(tmp_path / "auth-waiting.png"))
        # the person signs in elsewhere; the authorization server approves and redirects to an address that
        # this browser cannot reach: they copy it from the address bar
        async with httpx.AsyncClient(trust_env=False, timeout=BROWSER_TIMEOUT) as client:
            redirect = (await client.get(tab.auth.address.text())).headers["location"]
        tab.auth.paste_edit.setText("http://127.0.0.1/elsewhere?state=x")
        tab.auth.paste_button.click()
        assert "carries no code" in tab.auth.paste_problem.text() and tab.live.login.is_waiting
        tab.auth.paste_edit.setText("http://127.0.0.1/elsewhere?code=nothing&state=x")
        tab.auth.paste_button.click()
        assert "another login" in tab.auth.paste_problem.text() and tab.live.login.is_waiting
        tab.auth.paste_edit.setText(redirect)
        tab.auth.paste_button.click()
        assert tab.auth.paste_problem.text() == ""
        await until(lambda: tab.live.state in (READY, FAILED), CONNECT_TIMEOUT, "the session")
        assert tab.live.state == READY, tab.live.sentence
        assert own_listening_ports() == {}
        assert win.statusBar().currentMessage() == NO_PORT
        assert tab.auth.waiting_box.isHidden()
        assert [name for name, _ in steps_shown(tab)][-2:] == ["authorize", "token"]

    with open_test_window(qloop, tmp_path) as win:
        qloop.run_until_complete(scenario(win))
    assert own_listening_ports() == {}


def test_a_server_without_s256_is_refused_and_the_auth_panel_says_why_with_the_rule(
        qloop: asyncio.AbstractEventLoop, auth_server: Callable[..., AuthServer], browser: Callable[..., PlayedBrowser],
        tmp_path: Path) -> None:
    server = auth_server("--no-s256")
    played = browser()

    async def scenario(win: Any) -> None:
        tab = open_protected(win, server)
        await until(lambda: tab.live.state in (READY, FAILED), CONNECT_TIMEOUT, "the session")
        assert tab.live.state == FAILED
        assert "code_challenge_methods_supported" in tab.live.sentence
        assert played.opened == []  # no browser, no port: the flow stopped at the metadata
        assert steps_shown(tab)[-1] == ("metadata", "failed")
        failed = tab.auth.steps.topLevelItem(tab.auth.steps.topLevelItemCount() - 1)
        assert tab.side.currentWidget() is tab.auth  # the failure is in view
        assert failed.text(1) == ("the authorization server metadata lists no S256 in "
                                  "code_challenge_methods_supported: the client must refuse to continue")
        assert tab.auth.steps.currentItem() is failed
        detail = tab.auth.detail.toPlainText()
        assert "rule: MCP authorization, Authorization Code Protection" in detail
        assert "refuse to proceed without S256" in detail
        tab.side.setCurrentWidget(tab.auth)
        assert tab.side.grab().save(str(tmp_path / "auth-refused.png"))

    with open_test_window(qloop, tmp_path) as win:
        qloop.run_until_complete(scenario(win))
    assert own_listening_ports() == {}


def test_stopping_a_session_while_the_login_waits_closes_the_port(
        qloop: asyncio.AbstractEventLoop, auth_server: Callable[..., AuthServer], browser: Callable[..., PlayedBrowser],
        tmp_path: Path) -> None:
    server = auth_server()
    browser(visit=False)

    async def scenario(win: Any) -> None:
        tab = open_protected(win, server)
        await until(lambda: tab.live.login.is_waiting, CONNECT_TIMEOUT, "the login to wait")
        assert len(own_listening_ports()) == 1
        await asyncio.wait_for(tab.live.stop(), 5)
        assert own_listening_ports() == {}
        assert steps_shown(tab)[-1] == ("authorize", "failed")
        assert "given up" in tab.auth.steps.topLevelItem(tab.auth.steps.topLevelItemCount() - 1).text(1)

    with open_test_window(qloop, tmp_path) as win:
        qloop.run_until_complete(scenario(win))
    assert own_listening_ports() == {}


def test_the_profile_dialog_says_whether_a_token_is_held_and_when_it_expires_and_logs_out(qapp: Any,
                                                                                         tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/mcp"
    store = TokenStore()
    store.save(url, "client-1", TokenSet("the-token", refresh_token="the-refresh", expires_at=time.time() + 2 * 3600))
    profile = ServerProfile(name="remote", kind="http", url=url, oauth=True, oauth_client_id="client-1",
                            oauth_scope="mcp:read")
    dialog = ProfileDialog(profile, ())
    text = dialog.token_label.text()
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(store.holds(url).expires_at))  # type: ignore[union-attr]
    assert text.startswith(f"A token is held; it expires at {when}, in 1 h 59 min (a refresh token is held too).")
    assert "kept in memory" in text  # the tests never touch a keyring
    assert dialog.logout_button.isEnabled() and dialog.oauth_check.isChecked()
    assert dialog.profile() == profile  # the OAuth settings survive an edit
    assert dialog.grab().save(str(tmp_path / "profile-dialog.png"))
    dialog.url_edit.setText("http://127.0.0.1:9/other")
    assert dialog.token_label.text() == "No token held." and not dialog.logout_button.isEnabled()
    dialog.url_edit.setText(url)
    dialog.logout_button.click()
    assert store.holds(url) is None and store.load(url, "client-1") is None
    assert dialog.token_label.text() == "No token held." and not dialog.logout_button.isEnabled()
    dialog.oauth_check.setChecked(False)
    assert not dialog.oauth_client_edit.isEnabled() and dialog.profile().oauth is False
    dialog.deleteLater()


def test_a_login_refused_after_the_listener_opened_closes_the_port(
        qloop: asyncio.AbstractEventLoop, auth_server: Callable[..., AuthServer], browser: Callable[..., PlayedBrowser],
        tmp_path: Path) -> None:
    server = auth_server("--registration", "pre")  # no registration endpoint, and no client id given
    played = browser()

    async def scenario(win: Any) -> None:
        tab = open_protected(win, server)
        await until(lambda: tab.live.state in (READY, FAILED), CONNECT_TIMEOUT, "the session")
        assert tab.live.state == FAILED and "registration_endpoint" in tab.live.sentence
        assert steps_shown(tab)[-1] == ("registration", "failed") and played.opened == []
        assert own_listening_ports() == {}  # the listener had opened (its port is in the redirect URI to register)

    with open_test_window(qloop, tmp_path) as win:
        qloop.run_until_complete(scenario(win))
    assert own_listening_ports() == {}


def test_the_window_signs_in_with_oauth_only_when_url_oauth_or_a_profile_asks() -> None:
    from inspector.cli.main import build_parser

    url = "http://127.0.0.1:9/mcp"
    asked = Target.from_window_args(build_parser().parse_args(["--url", url, "--oauth"]), [])
    assert asked is not None and asked.oauth == OAuthOptions(authorize="browser")
    plain = Target.from_window_args(build_parser().parse_args(["--url", url]), [])
    assert plain is not None and plain.oauth is None
    profile = ServerProfile(name="remote", kind="http", url=url, oauth=True, oauth_client_id="app", oauth_scope="a b")
    assert ServerProfile.from_json(profile.to_json()) == profile
    assert Target.from_profile(profile).oauth == OAuthOptions(client_id="app", scope="a b")
    assert Target.from_profile(ServerProfile(name="remote", kind="http", url=url)).oauth is None
    assert ServerProfile.from_json({"name": "old", "kind": "http", "url": url}).oauth is False  # files from before


def test_a_protected_server_opened_without_oauth_says_how_to_sign_in_from_a_profile_or_without_one(
        qloop: asyncio.AbstractEventLoop, auth_server: Callable[..., AuthServer], tmp_path: Path) -> None:
    server = auth_server()

    async def scenario(win: Any) -> tuple[str, str]:
        plain = win.open_live(Target(name="protected", url=server.url))
        saved = win.open_live(Target.from_profile(ServerProfile(name="saved", kind="http", url=server.url)))
        for tab in (plain, saved):
            await until(lambda t=tab: t.live.state in (READY, FAILED, CLOSED), CONNECT_TIMEOUT, "the refusal")
        return plain.status.text(), saved.status.text()

    with open_test_window(qloop, tmp_path) as win:
        plain, saved = qloop.run_until_complete(scenario(win))
    assert "HTTP 401" in plain and "sign in with OAuth (a profile with OAuth ticked, or --url URL --oauth)" in plain
    assert "tick OAuth in the server's profile to sign in" in saved, saved
