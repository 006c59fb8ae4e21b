"""Redirects (inspector/core/transports/redirects.py): a server's 307 to another origin must not carry the user's
headers and credentials there, and a redirect to a non-http URL is refused with a sentence (issue 39, section 6).

Each case is a real pair of HTTP servers on 127.0.0.1, in threads of the test: the one named redirects, the
other origin records the headers each request brought it and answers as an MCP server would.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from inspector.core.connect.target import Target, make_transport
from inspector.core.doctor.model import FAILED, WARNING
from inspector.core.doctor.runner import diagnose
from inspector.core.session.outcomes import result_of
from inspector.core.session.session import Session
from inspector.core.transports.base import HttpStatusError, TransportError
from inspector.core.transports.http_common import HttpOptions
from inspector.core.transports.redirects import OWN_HEADERS, redirect_refusal, strip_private
from inspector.core.transports.streamable_http import StreamableHttpTransport
from inspector.core.wire.events import Kind

BEARER = "bearer-secret-39a1"
USER_HEADERS = {"X-Api-Key": "key-secret-39b2", "Cookie": "sid=cookie-secret-39c3"}
SECRETS = (BEARER, *USER_HEADERS.values())
#: Bound on a whole scenario: a handshake and a listing on loopback take milliseconds.
SCENARIO_TIMEOUT = 30.0
#: How often a test server's loop looks for its shutdown (the standard library's 0.5 s, per server, adds up).
SHUTDOWN_POLL = 0.02


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.seen: list[dict[str, str]] = []  #: the headers of each request, as received
        super().__init__(("127.0.0.1", 0), Handler)

    def url(self, path: str = "/mcp") -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{path}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Server

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.seen.append(dict(self.headers))
        status, headers, content = self.server.answer(self, body)
        self.send_response(status)
        for name, value in {**headers, "Content-Length": str(len(content))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(content)

    do_GET = do_DELETE = do_POST


def mcp_answer(handler: Handler, body: bytes) -> tuple[int, dict[str, str], bytes]:
    """An MCP server in one function: initialize and tools/list answered, the rest accepted (202)."""
    if handler.command != "POST":
        return 405, {}, b""
    message = json.loads(body)
    if "id" not in message:
        return 202, {}, b""
    result: dict[str, Any] = {"tools": []} if message["method"] == "tools/list" else {
        "protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
        "serverInfo": {"name": "other-origin", "version": "1"}}
    return 200, {"Content-Type": "application/json"}, json.dumps({"jsonrpc": "2.0", "id": message["id"],
                                                                 "result": result}).encode()


def redirect_to(location: str) -> Any:
    def answer(handler: Handler, body: bytes) -> tuple[int, dict[str, str], bytes]:
        return 307, {"Location": location}, b""
    return answer


@contextmanager
def serving(answer: Any) -> Iterator[Server]:
    server = Server(answer)
    thread = threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def user_options(url: str) -> HttpOptions:
    return HttpOptions(url=url, bearer=BEARER, headers=dict(USER_HEADERS), connect_timeout=5.0, response_timeout=10.0)


def listing(url: str) -> tuple[Any, Session]:
    """A session on ``url`` with the user's bearer and headers: its handshake and ``tools/list``."""
    async def scenario() -> tuple[Any, Session]:
        session = Session(StreamableHttpTransport(user_options(url)))
        await session.start()
        try:
            await session.handshake("legacy")
            return result_of(await session.request("tools/list")), session
        finally:
            await session.close()

    return asyncio.run(asyncio.wait_for(scenario(), SCENARIO_TIMEOUT))


def carried_secrets(seen: list[dict[str, str]]) -> list[str]:
    text = json.dumps(seen)
    return [secret for secret in SECRETS if secret in text]


def findings(session: Session, code: str) -> list[str]:
    return [f.text for e in session.events if e.kind == Kind.HTTP for f in e.findings if f.code == code]


def test_a_redirect_to_another_origin_carries_no_credentials_and_no_user_headers():
    with serving(mcp_answer) as other, serving(redirect_to(other.url("/stolen"))) as named:
        (result, error), session = listing(named.url())
    assert error is None and result == {"tools": []}  # the session went on there, as an SDK client would
    assert other.seen, "the redirect was not followed"
    assert carried_secrets(other.seen) == []
    assert not any(name.lower() in ("authorization", "x-api-key", "cookie") for seen in other.seen for name in seen)
    assert carried_secrets(named.seen[:1]) == list(SECRETS)  # the origin named got them all
    said = findings(session, "redirect-other-origin")
    assert said and "go without your headers and credentials" in said[0] and "use it directly" not in said[0]


@pytest.mark.parametrize("transport", ["auto", "streamable-http"])
def test_the_transport_every_command_and_the_window_build_from_a_target_keeps_credentials_home(transport):
    # make_transport is where record, call, tools, check, load, doctor and the window's live session get theirs
    async def scenario(url: str) -> None:
        target = Target(name="t", url=url, transport=transport, bearer=BEARER, headers=dict(USER_HEADERS))
        session = Session(make_transport(target))
        await session.start()
        try:
            await session.handshake("legacy")
        finally:
            await session.close()

    with serving(mcp_answer) as other, serving(redirect_to(other.url("/stolen"))) as named:
        asyncio.run(asyncio.wait_for(scenario(named.url()), SCENARIO_TIMEOUT))
    assert other.seen and carried_secrets(other.seen) == []


def test_the_capture_shows_the_requests_to_the_other_origin_as_sent_without_the_headers():
    with serving(mcp_answer) as other, serving(redirect_to(other.url("/stolen"))) as named:
        _, session = listing(named.url())
    there = [e for e in session.events if e.kind == Kind.HTTP and "/stolen" in str(e.data.get("url", ""))
             and "request_headers" in e.data]
    assert there
    assert all(not {"authorization", "x-api-key", "cookie"} & {k.lower() for k in e.data["request_headers"]}
               for e in there)


def test_a_redirect_on_the_origin_named_keeps_the_users_headers():
    def moved(handler: Handler, body: bytes) -> tuple[int, dict[str, str], bytes]:
        return (307, {"Location": "/mcp"}, b"") if handler.path == "/old" else mcp_answer(handler, body)

    with serving(moved) as server:
        (_, error), session = listing(server.url("/old"))
    assert error is None and len(server.seen) > 1
    assert all(carried_secrets([seen]) == list(SECRETS) for seen in server.seen)
    assert findings(session, "redirect") and not findings(session, "redirect-other-origin")


@pytest.mark.parametrize("location", ["file:///etc/passwd", "smb://evil/x"])
def test_a_redirect_to_a_file_or_smb_url_is_refused_with_a_sentence(location):
    with serving(redirect_to(location)) as named:
        with pytest.raises(TransportError) as raised:
            listing(named.url())
    sentence = str(raised.value)
    scheme = location.split(":", 1)[0]
    assert sentence == (f"POST {named.url()}: the server redirected (307) to {location}, a {scheme}: URL, not http or "
                        "https, so mcp-inspector does not follow it")
    assert len(named.seen) == 1


def test_the_doctor_refuses_a_redirect_to_a_file_url_and_does_not_advise_using_it():
    with serving(redirect_to("file:///etc/passwd")) as named:
        report = asyncio.run(diagnose(Target(name="t", url=named.url(), connect_timeout=5.0, bearer=BEARER),
                                      timeout=10.0))
    http = next(s for s in report.steps if s.step == "http")
    assert http.status == FAILED
    assert "a file: URL, not http or https, so mcp-inspector does not follow it" in http.detail
    assert "use it directly" not in http.detail + http.fix and "file:" not in http.fix


def test_the_doctor_sends_nothing_of_the_users_to_another_origin_and_says_to_use_it_only_if_trusted():
    with serving(mcp_answer) as other, serving(redirect_to(other.url("/stolen"))) as named:
        report = asyncio.run(diagnose(Target(name="t", url=named.url(), connect_timeout=5.0, bearer=BEARER,
                                             headers=dict(USER_HEADERS)), timeout=10.0))
    assert other.seen and carried_secrets(other.seen) == []
    http = next(s for s in report.steps if s.step == "http")
    assert http.status == WARNING
    assert "go without your headers and credentials" in http.detail
    assert http.fix.startswith(f"Name the URL the server redirects to ({other.url('/stolen')}) as the server's URL "
                               "only if you trust its origin")


class FakeOAuth:
    """An OAuth client that holds a token and would sign in again on any 401: what it was asked, recorded."""

    secrets: set[str] = set()
    generation = 1
    max_step_ups = 2

    def __init__(self) -> None:
        self.asked: list[str] = []  #: the URLs it was asked a token for
        self.challenges = 0

    async def before_request(self, io: Any) -> None:
        pass

    def request_headers(self, method: str, url: str) -> dict[str, str]:
        self.asked.append(url)
        return {"Authorization": "Bearer oauth-token-39f6"}

    def resource_nonce(self, status: int, headers: Any, url: str) -> bool:
        return False

    def challenge_of(self, www_authenticate: str) -> str:
        return www_authenticate

    def handles(self, status: int, challenge: Any) -> bool:
        return status == 401

    async def on_challenge(self, status: int, challenge: Any, sent: int, io: Any) -> None:
        self.challenges += 1


def test_an_oauth_token_stays_home_and_a_401_from_another_origin_starts_no_sign_in():
    def refuses(handler: Handler, body: bytes) -> tuple[int, dict[str, str], bytes]:
        return 401, {"WWW-Authenticate": 'Bearer resource_metadata="http://127.0.0.1:9/prm"'}, b""

    oauth = FakeOAuth()

    async def scenario(url: str) -> None:
        options = HttpOptions(url=url, oauth=oauth, connect_timeout=5.0, response_timeout=10.0)
        session = Session(StreamableHttpTransport(options))
        await session.start()
        try:
            await session.handshake("legacy")
        finally:
            await session.close()

    with serving(refuses) as other, serving(redirect_to(other.url("/stolen"))) as named:
        with pytest.raises(HttpStatusError, match="/stolen: HTTP 401"):
            asyncio.run(asyncio.wait_for(scenario(named.url()), SCENARIO_TIMEOUT))
    assert other.seen and "oauth-token-39f6" not in json.dumps(other.seen)
    assert "oauth-token-39f6" in json.dumps(named.seen)
    assert oauth.challenges == 0 and all("/stolen" not in url for url in oauth.asked)


def test_an_oauth_flow_request_to_another_origin_keeps_the_headers_the_flow_chose():
    client = httpx.Client()
    flow = client.build_request("POST", "https://as.example/token", headers={"Authorization": "Basic abc"},
                                extensions={OWN_HEADERS: True})
    user = client.build_request("POST", "https://as.example/token", headers={"Authorization": "Basic abc",
                                                                             "X-Api-Key": "k", "Accept": "x"})
    assert strip_private(flow, "http://127.0.0.1:1/mcp", {"X-Api-Key": "k"}) == []
    assert strip_private(user, "http://127.0.0.1:1/mcp", {"X-Api-Key": "k"}) == ["authorization", "x-api-key"]
    assert user.headers["accept"] == "x"  # a protocol header: the other origin could not answer without it
    client.close()


@pytest.mark.parametrize(("home", "there", "kept"), [
    ("http://127.0.0.1:8000/mcp", "http://127.0.0.1:8000/other", True),
    ("http://127.0.0.1:80/mcp", "http://127.0.0.1/mcp", True),  # the default port, spelled or not
    ("http://127.0.0.1:8000/mcp", "http://127.0.0.1:8001/mcp", False),
    ("http://127.0.0.1:8000/mcp", "http://localhost:8000/mcp", False),  # another host name is another origin
    ("http://example.test/mcp", "https://example.test/mcp", False),  # another scheme too
])
def test_headers_stay_only_on_the_origin_named(home, there, kept):
    with httpx.Client() as client:
        request = client.build_request("GET", there, headers={"Authorization": "Bearer t"})
        assert (strip_private(request, home, {}) == []) is kept


def test_only_http_and_https_redirects_may_be_followed():
    assert redirect_refusal(307, "https://a.example/mcp") is None
    assert redirect_refusal(307, "/relative") is None
    assert redirect_refusal(308, "javascript:alert(1)") is not None
