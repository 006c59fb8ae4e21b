"""No URL a server chose reaches the system's URL opener, or a request of the OAuth flow, unless it is https or
http to this computer (issue 26, point 1; the class of CVE-2025-6514).

A hostile authorization server (servers/hostile_oauth_server.py, from the adversarial pass) names an
``authorization_endpoint`` of ``file:///etc/passwd``, ``smb://attacker.example/share/x.exe``,
``javascript:...`` or plain ``http://attacker.example/...``. The browser sign-in is played by a recording
stand-in: for the CLI a script that ``BROWSER`` points at (servers/recording_browser.sh, the adversarial pass's
fakebrowser.sh), for the window a function put in place of ``oauth.open_in_browser``, and the openers
themselves are checked with a recorder behind them. The other endpoints of the flow (metadata, registration,
token) are checked in core with a recording network, since a plain-http request to another computer cannot be
let out of this machine.
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import warm_cli
from helpers import kill_group, until, wait_until
from qt_loop import open_test_window

from inspector.core.auth import authorize, tokens
from inspector.core.auth.challenge import parse_challenge
from inspector.core.auth.flow import AuthIO, OAuthClient, Reply
from inspector.core.auth.model import RULES, AuthError, OAuthOptions
from inspector.core.connect.target import Target
from inspector.core.exits import EXIT_OK
from inspector.ui import oauth
from inspector.ui.session.live import FAILED, READY

SERVERS = Path(__file__).resolve().parent / "servers"
HOSTILE_SERVER = SERVERS / "hostile_oauth_server.py"
RECORDING_BROWSER = SERVERS / "recording_browser.sh"
#: The hostile server's modes and the authorization endpoint each names.
HOSTILE = {"authz-file": "file:///etc/passwd", "authz-smb": "smb://attacker.example/share/x.exe",
           "authz-js": "javascript:alert(document.domain)//", "authz-http": "http://attacker.example/authorize"}
#: Bound on a refused sign-in (the refusal comes before any wait for a browser).
REFUSAL_TIMEOUT = 30.0
#: Bound on the hostile server coming up.
STARTUP_TIMEOUT = 30.0


class HostileServer:
    def __init__(self, mode: str, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        port_file = directory / "port"
        self.log = directory / "server.log"
        with self.log.open("wb") as log:
            self.process = subprocess.Popen([sys.executable, str(HOSTILE_SERVER), mode, str(port_file)],
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                                            start_new_session=True)
        wait_until(lambda: port_file.exists() or self.process.poll() is not None, STARTUP_TIMEOUT,
                   "the hostile OAuth server's port file")
        assert self.process.poll() is None, self.log.read_text()
        self.url = f"http://127.0.0.1:{int(port_file.read_text())}/mcp"

    def stop(self) -> None:
        kill_group(self.process.pid)
        self.process.wait(timeout=10)


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[Any]:
    started: list[HostileServer] = []

    def start(mode: str) -> HostileServer:
        started.append(HostileServer(mode, tmp_path / f"server-{mode}"))
        return started[-1]

    yield start
    for server in started:
        server.stop()


def opened(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def record_signing_in(server: HostileServer, folder: Path) -> tuple[int | None, str, list[str], float]:
    """``record --url URL --oauth`` (the default sign-in: the system browser, played by the recording script):
    its exit status, its stderr, what the browser was asked to open, and how long it took. Stopped as soon as
    it ends or the browser is asked for something (before the fix it then waited for a login that never came)."""
    browser_log, stderr = folder / "browser.log", folder / "record.err"
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "BROWSER": str(RECORDING_BROWSER), "RECORDING_BROWSER_LOG": str(browser_log),
           "MCP_INSPECTOR_TOKEN_STORE": "memory"}
    started = time.monotonic()
    with stderr.open("wb") as errors:
        process = warm_cli.Popen([sys.executable, "-m", "inspector", "record", "--url", server.url, "--oauth",
                                  "--out", str(folder / "capture.jsonl"), "--timeout", "20"],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors, env=env,
                                 start_new_session=True)
    try:
        wait_until(lambda: process.poll() is not None or browser_log.exists(), REFUSAL_TIMEOUT,
                   "record to refuse the sign-in or open the browser")
    finally:
        kill_group(process.pid)
        process.wait(timeout=10)
    return process.returncode, stderr.read_text(), opened(browser_log), time.monotonic() - started


@pytest.mark.report("security", "record --oauth never hands a server's file:, smb:, javascript: or plain-http "
                                "authorization URL to the system browser", surface="CLI")
def test_record_with_oauth_hands_no_hostile_authorization_url_to_the_browser_and_says_why(
        hostile, tmp_path: Path, report) -> None:
    seen = []
    for mode, endpoint in HOSTILE.items():
        status, said, asked, took = record_signing_in(hostile(mode), tmp_path / mode)
        assert asked == [], f"{mode}: the system browser was asked to open {asked}"
        assert status not in (EXIT_OK, None)
        assert f"the authorization_endpoint of the server's metadata was refused: {endpoint}" in said, said
        assert "neither opened nor requested" in said and RULES["url"] in said
        assert "Traceback" not in said
        seen.append(f"{endpoint.split(':')[0]}: refused in {took:.1f} s")
    report.saw("mcp-inspector: OAuth authorize: the authorization_endpoint of the server's metadata was refused: "
               "smb://attacker.example/share/x.exe uses the smb: scheme, not https, so it is neither opened nor "
               f"requested; the stand-in browser was asked to open nothing ({'; '.join(seen)})")


@pytest.mark.report("security", "the window's sign-in never hands a server's file:, smb:, javascript: or plain-http "
                                "authorization URL to the system browser", surface="GUI")
def test_the_windows_sign_in_hands_no_hostile_authorization_url_to_the_browser_and_the_auth_panel_says_why(
        qloop: asyncio.AbstractEventLoop, hostile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        report) -> None:
    monkeypatch.setenv("MCP_INSPECTOR_TOKEN_STORE", "memory")
    asked: list[str] = []
    monkeypatch.setattr(oauth, "open_in_browser", lambda url: asked.append(url) or True)
    seen = []

    async def sign_in(win: Any, mode: str, endpoint: str) -> None:
        tab = win.open_live(Target(name=mode, url=hostile(mode).url, oauth=OAuthOptions(), timeout=10.0))
        await until(lambda: tab.live.state in (READY, FAILED) or bool(asked), REFUSAL_TIMEOUT,
                    f"the window to refuse or open {endpoint}")
        assert asked == [], f"{mode}: the system browser was asked to open {asked}"
        assert tab.live.state == FAILED
        assert f"the authorization_endpoint of the server's metadata was refused: {endpoint}" in tab.live.sentence
        rows = tab.auth.steps
        failed = rows.topLevelItem(rows.topLevelItemCount() - 1)
        assert failed.toolTip(0) == "authorize: failed"
        assert "neither opened nor requested" in failed.text(1)
        assert f"rule: {RULES['url']}" in tab.auth.detail.toPlainText()
        assert tab.side.currentWidget() is tab.auth  # the refusal is in view
        seen.append(endpoint.split(":")[0])

    async def scenario(win: Any) -> None:
        for mode, endpoint in HOSTILE.items():
            await sign_in(win, mode, endpoint)

    with open_test_window(qloop, tmp_path) as win:
        qloop.run_until_complete(scenario(win))
    report.saw(f"the session fails and its Auth tab shows the refused authorize step with the rule, for "
               f"{', '.join(seen)}; the browser was asked to open nothing")


class RecordingUrlHandler:
    """Receives what QDesktopServices would hand the system for a scheme (``setUrlHandler``)."""

    def __init__(self) -> None:
        from PySide6.QtCore import QObject, Slot

        class Receiver(QObject):
            def __init__(self) -> None:
                super().__init__()
                self.urls: list[str] = []

            @Slot("QUrl")
            def handle(self, url: Any) -> None:
                self.urls.append(url.toString())

        self.receiver = Receiver()


def test_the_windows_system_browser_opens_only_https_or_loopback_http(qapp: Any) -> None:
    from PySide6.QtGui import QDesktopServices

    handler = RecordingUrlHandler()
    schemes = ("file", "smb", "javascript", "http", "https", "data")
    for scheme in schemes:
        QDesktopServices.setUrlHandler(scheme, handler.receiver, "handle")
    try:
        for url in [*HOSTILE.values(), "data:text/html,<script>alert(1)</script>"]:
            assert oauth.system_browser(url) is False
        assert handler.receiver.urls == []
        # what the rule lets through does reach the opener (so the recorder above would have seen the others)
        assert oauth.system_browser("http://127.0.0.1:9/authorize?state=x") is True
        assert oauth.system_browser("https://auth.example/authorize") is True
        assert handler.receiver.urls == ["http://127.0.0.1:9/authorize?state=x", "https://auth.example/authorize"]
    finally:
        for scheme in schemes:
            QDesktopServices.unsetUrlHandler(scheme)


def test_the_headless_system_browser_opens_only_https_or_loopback_http(tmp_path: Path) -> None:
    log = tmp_path / "browser.log"
    script = "import sys\nfrom inspector.core.auth.authorize import open_in_system_browser\n" \
             "for url in sys.argv[1:]:\n    open_in_system_browser(url)\n"
    urls = [*HOSTILE.values(), "http://127.0.0.1:9/authorize?state=x", "https://auth.example/authorize"]
    run = subprocess.run([sys.executable, "-c", script, *urls], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "BROWSER": str(RECORDING_BROWSER), "RECORDING_BROWSER_LOG": str(log)})
    assert run.returncode == 0, run.stderr
    assert opened(log) == ["OPENED: http://127.0.0.1:9/authorize?state=x", "OPENED: https://auth.example/authorize"]
    assert run.stderr.count("mcp-inspector: not opened in a browser: ") == len(HOSTILE)


class RecordingNetwork:
    """The OAuth flow's network (``AuthIO.fetch``) played in memory: answers an honest flow on loopback from the
    metadata given, and records every URL it was asked for. Plain http to another computer cannot be requested
    for real from a test; this is what would have been."""

    BASE = "http://127.0.0.1:9"

    def __init__(self, **endpoints: str) -> None:
        self.metadata = {"issuer": self.BASE, "authorization_endpoint": self.BASE + "/authorize",
                         "token_endpoint": self.BASE + "/token", "registration_endpoint": self.BASE + "/register",
                         "code_challenge_methods_supported": ["S256"], **endpoints}
        self.prm = {"resource": self.BASE + "/mcp", "authorization_servers": [self.BASE]}
        self.requested: list[str] = []

    async def fetch(self, method: str, url: str, step: str, headers: dict[str, str], body: bytes | None) -> Reply:
        self.requested.append(url)
        path = url.split("?")[0].removeprefix(self.BASE)
        if path.startswith("/.well-known/oauth-protected-resource"):
            return self._json(200, self.prm, url)
        if path.startswith("/.well-known/oauth-authorization-server"):
            return self._json(200, self.metadata, url)
        if path == "/register":
            registered = json.loads(body or b"{}")
            return self._json(201, {"client_id": "client-1", "redirect_uris": registered["redirect_uris"]}, url)
        if path == "/token":
            return self._json(200, {"access_token": "token-1", "token_type": "Bearer"}, url)
        return self._json(404, {}, url)

    @staticmethod
    def _json(status: int, value: Any, url: str) -> Reply:
        return Reply(status, {"content-type": "application/json"}, json.dumps(value).encode(), url)


class ApprovingAuthorizer(authorize.FollowAuthorizer):
    """``follow`` without a network: the authorization server approves at once."""

    async def obtain(self, url: str, state: str, io: AuthIO) -> str:
        return f"{self.redirect_uri}?code=code-1&state={state}"


HOSTILE_URLS = ["file:///etc/passwd", "smb://attacker.example/share/x.exe", "javascript:alert(1)//",
                "http://attacker.example/x"]


def login(network: RecordingNetwork, challenge: str = "Bearer") -> OAuthClient:
    """One login through ``network``, with a fresh memory (no client registered earlier is reused)."""
    tokens._MEMORY.clear()
    client = OAuthClient(RecordingNetwork.BASE + "/mcp", OAuthOptions(authorize="follow"),
                         tokens.TokenStore(use_keyring=False), lambda options: ApprovingAuthorizer())
    asyncio.run(client.login(AuthIO(network.fetch), parse_challenge(challenge)))
    return client


@pytest.mark.report("security", "no request of the OAuth flow goes to a server-chosen file:, smb:, javascript: or "
                                "plain-http URL (metadata, registration, token)", surface="core")
def test_no_endpoint_of_the_oauth_flow_is_requested_unless_it_is_https_or_loopback_http(report) -> None:
    # the honest flow completes through the recording network, so each refusal below is the rule's
    network = RecordingNetwork()
    assert login(network).tokens is not None
    assert [url.split("?")[0].removeprefix(network.BASE) for url in network.requested] == [
        "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server", "/register", "/token"]
    refused = []
    for url in HOSTILE_URLS:
        for what in ("protected resource metadata URL", "authorization server metadata URL", "registration_endpoint",
                     "token_endpoint"):
            network = RecordingNetwork()
            challenge = "Bearer"
            if what == "protected resource metadata URL":
                challenge = f'Bearer resource_metadata="{url}"'
            elif what == "authorization server metadata URL":
                network.prm["authorization_servers"] = [url]
            else:
                network.metadata[what] = url
            with pytest.raises(AuthError) as error:
                login(network, challenge)
            outside = [each for each in network.requested if not each.startswith(network.BASE + "/")]
            assert outside == [], f"the flow requested {outside}"
            sentence = str(error.value)
            assert f"the {what} was refused: " in sentence and RULES["url"] in sentence, sentence
            refused.append(what)
    assert len(refused) == 4 * len(HOSTILE_URLS)
    report.saw(f"each of {len(refused)} hostile URLs (4 schemes at 4 places) refused before any request, with the "
               "rule: e.g. OAuth token: the token_endpoint was refused: http://attacker.example/x is plain http to "
               "attacker.example, another computer, so it is neither opened nor requested")


#: What hands a URL or a file to the system: Qt's and Python's openers, and the platforms' open commands.
OPENERS = re.compile(r"QDesktopServices\.openUrl|webbrowser\.(?:open|get)|startfile|xdg-open|setOpenExternalLinks\("
                     r"True\)|\[\"open\"")
#: The only functions allowed to call one: the two sign-in openers, each behind the URL rule, the Problems
#: panel's spec links (the rules' own pages, never a server's URL; behind the URL rule too) and the client
#: bench's (a check's page of the MCP specification, from the bench's own checks, never a client's text; behind
#: the URL rule and the specification's prefix).
GUARDED = {("inspector/ui/oauth.py", "system_browser"),
           ("inspector/core/auth/authorize.py", "open_in_system_browser"),
           ("inspector/ui/panels/problems.py", "open_spec_link"),
           ("inspector/ui/clientbench/dialog.py", "open_spec_link")}


def test_every_system_opener_in_the_code_is_one_of_the_two_sign_in_openers_behind_the_url_rule() -> None:
    """A link from server content (a resource link, a Markdown link in a result, an MCP Apps ui/open-link) has
    no opener to reach: the window shows it and reads a resource link through the session on a click."""
    root = Path(__file__).resolve().parents[2]
    found = set()
    for path in sorted((root / "inspector").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        if OPENERS.search(text) is None:
            continue  # no opener anywhere in the file, so in none of its functions
        tree = ast.parse(text)
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            source = ast.get_source_segment(text, function) or ""
            body = source.split('"""', 2)[-1] if source.count('"""') >= 2 else source  # not the docstring
            opener = OPENERS.search(body)
            if opener is None or any(isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) and
                                     inner is not function for inner in ast.walk(function)):
                continue
            found.add((relative, function.name))
            rule = body.find("url_refusal(")
            assert 0 <= rule < opener.start(), f"{relative}: {function.name} opens without the URL rule first"
    assert found == GUARDED
