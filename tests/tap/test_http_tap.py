"""``mcp-inspector tap --url``: real clients (the Python SDK's own, the inspector's record) talk to real servers
through the tap, unchanged; the capture holds both directions in the HTTP transports' shapes and ``show`` reads
it; foreign Hosts and Origins get 403 and stay out of the capture; the port is open only while the tap runs."""

from __future__ import annotations

import json
import signal
import socket
import sys
from pathlib import Path

import anyio
import httpx
import pytest
from helpers import cli, wait_until
from http_tap_support import (
    SERVERS,
    children_of,
    http_support,
    listening_ports_of,
    port_listens,
    running_tap,
    socket_inodes,
)
from tls_support import https_server, make_certificate

from inspector.core.capture import read_capture
from inspector.core.exits import EXIT_BAD_INPUT
from inspector.core.wire.events import Direction, Kind

pytestmark = pytest.mark.integration

MISBEHAVING = [sys.executable, str(http_support.SERVERS / "misbehaving_http_server.py")]
ABSOLUTE_URLS = [sys.executable, str(SERVERS / "absolute_urls_server.py")]
WS_BRIDGE = Path(__file__).resolve().parent.parent / "plugins" / "servers" / "ws_bridge_server.py"
#: Bound on one client session through the tap.
CLIENT_TIMEOUT = 30.0


def messages(capture, direction: str) -> list:
    return [e for e in capture.events if e.kind == Kind.MESSAGE and e.dir == direction]


def http_events(capture, **wanted) -> list:
    return [e for e in capture.events if e.kind == Kind.HTTP and all(e.data.get(k) == v for k, v in wanted.items())]


def methods(capture, direction: str) -> list[str]:
    return [e.method for e in messages(capture, direction) if e.method]


# -- the SDK's own client, unchanged ------------------------------------------------------------------------


async def sdk_streamable_session(url: str) -> dict:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    with anyio.fail_after(CLIENT_TIMEOUT):
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            call = await session.call_tool("work", {"steps": 2})
            return {"server": init.server_info.name, "tools": [t.name for t in tools.tools],
                    "call": call.content[0].text}


async def sdk_sse_session(url: str) -> dict:
    from mcp.client.session import ClientSession
    from mcp.client.sse import sse_client

    with anyio.fail_after(CLIENT_TIMEOUT):
        async with sse_client(url) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            call = await session.call_tool("echo", {"message": "through the tap"})
            return {"server": init.server_info.name, "tools": [t.name for t in tools.tools],
                    "call": call.content[0].text}


def test_the_sdk_client_works_unchanged_through_the_tap_against_an_sdk_server_over_streamable_http(
        sdk_streamable, tmp_path):
    with running_tap(sdk_streamable.url("/mcp"), tmp_path / "tap.jsonl") as tap:
        assert tap.url == f"http://127.0.0.1:{tap.port}/mcp"
        result = anyio.run(sdk_streamable_session, tap.url)
        assert tap.stop() == 0, tap.stderr
    assert result == {"server": "inspector-test-sdk-http-server", "tools": ["add", "echo", "work", "ask"],
                      "call": "done after 2 steps"}
    capture = tap.capture
    assert capture.header["target"] == {"transport": "auto", "url": sdk_streamable.url("/mcp"), "headers": {},
                                        "redacted": True}
    assert capture.header["tap"]["listen"] == tap.url
    assert methods(capture, Direction.C2S) == ["initialize", "notifications/initialized", "tools/list", "tools/call"]
    answers = [e for e in messages(capture, Direction.S2C) if e.rpc and e.rpc.kind == "response"]
    assert [e.data["request_method"] for e in answers] == ["initialize", "tools/list", "tools/call"]
    assert all(e.data["latency"] >= 0 for e in answers)
    assert methods(capture, Direction.S2C) == ["notifications/message"] * 2  # the tool's log lines, on its stream
    # every exchange as the transports record it: what was sent to the server, what came back
    posts = http_events(capture, method="POST")
    assert posts and all(e.data["url"] == sdk_streamable.url("/mcp") for e in posts)
    assert posts[0].data["request_headers"]["host"] == f"127.0.0.1:{sdk_streamable.port}"
    assert posts[0].data["purpose"] == "initialize" and posts[0].data["status"] == 200
    assert "mcp-session-id" in posts[0].data["response_headers"]
    assert http_events(capture, method="GET", purpose="event stream"), "the standalone GET stream"
    assert http_events(capture, method="DELETE", purpose="end session", status=200), "the session's DELETE"
    assert capture.events[-1].kind == Kind.LIFECYCLE and capture.events[-1].data["by"] == "SIGINT"
    shown = cli("show", str(tap.capture_path))
    assert shown.returncode == 0, shown.stderr
    assert "tools/call" in shown.stdout and "→" in shown.stdout and "←" in shown.stdout
    har = cli("export", "--to", "har", str(tap.capture_path))
    assert har.returncode == 0, har.stderr
    entries = json.loads(har.stdout)["log"]["entries"]
    assert entries[0]["request"]["postData"]["text"] == messages(capture, Direction.C2S)[0].raw.decode()
    linted = cli("lint", str(tap.capture_path))
    assert f"{len(capture.events)} events, revision 2025-11-25" in linted.stdout, linted.stdout
    # lint judges the session as for any capture: the SDK server logs without declaring the logging capability
    assert linted.stdout.count("server-capability-undeclared notification notifications/message") == 2


@pytest.mark.npm
def test_the_sdk_client_works_through_an_sse_tap_against_server_everything_over_http_sse(everything_sse, tmp_path):
    with running_tap(everything_sse.url("/sse"), tmp_path / "tap.jsonl", "--transport", "sse") as tap:
        result = anyio.run(sdk_sse_session, tap.url)
        assert tap.stop() == 0, tap.stderr
    assert result["call"] == "Echo: through the tap" and "echo" in result["tools"]
    capture = tap.capture
    assert capture.header["target"]["transport"] == "sse"
    stream = http_events(capture, method="GET", purpose="event stream")[0]
    endpoint = next(e for e in capture.events if e.kind == Kind.SSE and e.data["event"] == "endpoint")
    assert endpoint.data["exchange"] == stream.data["exchange"]
    assert endpoint.data["endpoint"].startswith(f"http://127.0.0.1:{everything_sse.port}/message?sessionId=")
    assert "relayed_as" not in endpoint.data  # relative: it reached the client unchanged and resolved to the tap
    assert methods(capture, Direction.C2S)[:3] == ["initialize", "notifications/initialized", "tools/list"]
    answers = [e for e in messages(capture, Direction.S2C) if e.rpc and e.rpc.kind == "response"]
    assert {e.data["exchange"] for e in answers} == {stream.data["exchange"]}  # they came on the event stream
    assert [e.data["request_method"] for e in answers] == ["initialize", "tools/list", "tools/call"]
    assert all(e.data["status"] == 202 for e in http_events(capture, method="POST"))
    shown = cli("show", str(tap.capture_path))
    assert shown.returncode == 0 and "Echo: through the tap" in shown.stdout


# -- WebSocket ----------------------------------------------------------------------------------------------


@pytest.fixture
def ws_url(tmp_path):
    port = http_support.free_port()
    server = http_support.launch("WebSocket bridge", [sys.executable, str(WS_BRIDGE), str(port)],
                                 tmp_path / "ws.log", port=port)
    try:
        yield f"ws://127.0.0.1:{port}/ws"
    finally:
        http_support.stop(server)


def test_a_websocket_client_works_through_the_tap_and_each_frame_is_recorded(ws_url, tmp_path):
    send = tmp_path / "send.jsonl"
    send.write_text(json.dumps({"method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi ws"}}}))
    with running_tap(ws_url, tmp_path / "tap.jsonl") as tap:
        assert tap.url.startswith("ws://127.0.0.1:") and tap.url.endswith("/ws")
        recorded = cli("record", "--url", tap.url, "--transport", "websocket", "--out", str(tmp_path / "client.jsonl"),
                       "--send", str(send), "--handshake", "legacy", timeout=CLIENT_TIMEOUT)
        assert recorded.returncode == 0, recorded.stderr
        # the client's close frame reaches the tap after the client has exited: stopping the tap before it has
        # handled it cut the exchange short (seen once on a loaded machine)
        wait_until(lambda: b"the client closed the WebSocket" in tap.capture_path.read_bytes(), CLIENT_TIMEOUT,
                   "the tap to record the client's close frame")
        assert tap.stop() == 0, tap.stderr
    capture = tap.capture
    upgrade = http_events(capture, status=101)[0]
    assert upgrade.data["purpose"] == "websocket upgrade"
    assert upgrade.data["request_headers"]["sec-websocket-protocol"] == "mcp"
    assert upgrade.data["response_headers"]["sec-websocket-protocol"] == "mcp"
    client = read_capture(tmp_path / "client.jsonl")
    # the frames the client sent and got are exactly the messages the tap recorded, each way
    for direction in (Direction.C2S, Direction.S2C):
        assert [e.raw for e in messages(capture, direction)] == [e.raw for e in messages(client, direction)]
        assert all(e.data["exchange"] == upgrade.data["exchange"] for e in messages(capture, direction))
    assert any(e.kind == Kind.NOTE and "the client closed the WebSocket (code 1000" in e.data["text"]
               for e in capture.events)
    end = http_events(capture, exchange=upgrade.data["exchange"], phase="end")[0]
    assert "error" not in end.data


# -- Host and Origin: DNS rebinding ---------------------------------------------------------------------------


@pytest.mark.parametrize("header", [{"Host": "rebound.example.com:{port}"}, {"Origin": "http://evil.example.com"},
                                    {"Origin": "null"}, {"Host": "127.0.0.1:1"}])
def test_a_request_with_a_foreign_host_or_origin_gets_403_and_is_neither_relayed_nor_recorded(
        http_server, tmp_path, header):
    server = http_server([*MISBEHAVING, "good"], "misbehaving server (good)")
    secret = "tools/list from a foreign page"
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl") as tap:
        headers = {name: value.format(port=tap.port) for name, value in header.items()}
        body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"why": secret}})
        with httpx.Client(trust_env=False) as client:
            refused = client.post(tap.url, content=body, headers={"Content-Type": "application/json", **headers})
            allowed = client.post(tap.url, headers={"Content-Type": "application/json",
                                                    "Origin": f"http://localhost:{tap.port}"},
                                  content=json.dumps({"jsonrpc": "2.0", "id": 8, "method": "ping"}))
        assert tap.stop() == 0
    assert refused.status_code == 403
    assert "refused" in refused.text and ("Host" in refused.text or "Origin" in refused.text)
    assert allowed.status_code == 200 and allowed.json()["id"] == 8
    assert secret not in tap.capture_path.read_text()
    assert [e.method for e in messages(tap.capture, Direction.C2S)] == ["ping"]
    assert server.log_text().count('"POST /mcp HTTP/1.1"') == 1  # the ping only
    assert "refused a request (POST /mcp)" in tap.stderr and "403" in tap.stderr


@pytest.mark.parametrize("address", ["0.0.0.0:{port}", "[::]:{port}", "192.168.1.10:{port}", "localhost:{port}"])
def test_listening_anywhere_but_the_loopback_address_is_refused_with_one_sentence_and_no_port(tmp_path, address):
    port = http_support.free_port()
    result = cli("tap", "--url", "http://127.0.0.1:9/mcp", "--listen", address.format(port=port), "--no-live",
                 "--capture", str(tmp_path / "never.jsonl"))
    assert result.returncode == EXIT_BAD_INPUT
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("mcp-inspector tap: --listen ")
    assert "127.0.0.1" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "never.jsonl").exists()
    assert not port_listens(port)


def test_the_tap_listens_only_on_127_0_0_1_while_it_runs_and_nothing_listens_before_or_after(http_server,
                                                                                              tmp_path):
    server = http_server([*MISBEHAVING, "good"], "misbehaving server (good)")
    port = http_support.free_port()
    assert not port_listens(port)
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl", listen=f"127.0.0.1:{port}") as tap:
        assert tap.url == f"http://127.0.0.1:{port}/mcp"  # --listen's port: the client is given that URL
        assert listening_ports_of(tap.process.pid) == [("0100007F", port)]  # 127.0.0.1, nothing else
        recorders = children_of(tap.process.pid)
        assert recorders, "the recorder process"
        # the recorder must not hold the port open after the tap is gone: it closes its inherited copy of the
        # listening socket first thing after the fork, which may come just after the tap printed its URL
        wait_until(lambda: all(listening_ports_of(pid) == [] for pid in recorders), 30,
                   "the recorder to close its copy of the listening socket")
        recorded = cli("record", "--url", tap.url, "--out", str(tmp_path / "client.jsonl"), "--handshake", "legacy",
                       timeout=CLIENT_TIMEOUT)
        assert recorded.returncode == 0, recorded.stderr
        assert tap.stop() == 0, tap.stderr
        wait_until(lambda: all(not socket_inodes(pid) for pid in recorders), 30, "the recorder to finish")
    assert not port_listens(port)
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0  # nothing answers there any more
    assert methods(tap.capture, Direction.C2S)[:2] == ["initialize", "notifications/initialized"]


# -- headers, credentials, rewrites -----------------------------------------------------------------------------


def test_credentials_reach_the_server_through_the_tap_but_the_capture_has_them_redacted(http_server, tmp_path):
    server = http_server([*MISBEHAVING, "guarded"], "misbehaving server (guarded)")
    token = "good-token-4d1f"
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl") as tap:
        recorded = cli("record", "--url", tap.url, "-H", f"Authorization: Bearer {token}", "--out",
                       str(tmp_path / "client.jsonl"), "--handshake", "legacy", timeout=CLIENT_TIMEOUT)
        assert recorded.returncode == 0, recorded.stderr  # the guarded server let it in: the token was relayed
    text = tap.capture_path.read_text()
    assert token not in text
    posts = http_events(tap.capture, method="POST")
    assert posts and all(e.data["request_headers"]["authorization"] == "[redacted]" for e in posts)
    assert all(e.data["status"] in (200, 202) for e in posts)


def test_with_no_redact_the_capture_keeps_the_credentials(http_server, tmp_path):
    server = http_server([*MISBEHAVING, "guarded"], "misbehaving server (guarded)")
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl", "--no-redact") as tap:
        recorded = cli("record", "--url", tap.url, "-H", "Authorization: Bearer good-token-4d1f", "--out",
                       str(tmp_path / "client.jsonl"), "--handshake", "legacy", timeout=CLIENT_TIMEOUT)
        assert recorded.returncode == 0, recorded.stderr
    posts = http_events(tap.capture, method="POST")
    assert posts[0].data["request_headers"]["authorization"] == "Bearer good-token-4d1f"


def test_an_sse_tap_gives_the_client_an_absolute_endpoint_on_the_tap_so_its_messages_come_through(
        http_server, tmp_path):
    server = http_server(ABSOLUTE_URLS, "absolute-URLs server")
    with running_tap(server.url("/sse"), tmp_path / "tap.jsonl", "--transport", "sse") as tap:
        recorded = cli("record", "--url", tap.url, "--transport", "sse", "--out", str(tmp_path / "client.jsonl"),
                       "--handshake", "legacy", timeout=CLIENT_TIMEOUT)
        assert recorded.returncode == 0, recorded.stderr
    endpoint = next(e for e in tap.capture.events if e.kind == Kind.SSE and e.data["event"] == "endpoint")
    assert endpoint.data["endpoint"].startswith(f"http://127.0.0.1:{server.port}/messages?session=")
    assert endpoint.data["relayed_as"] == endpoint.data["endpoint"].replace(f":{server.port}/", f":{tap.port}/")
    assert endpoint.raw.decode().endswith(endpoint.data["endpoint"] + "\n")  # the capture has what the server said
    client_endpoint = next(e for e in read_capture(tmp_path / "client.jsonl").events
                           if e.kind == Kind.SSE and e.data["event"] == "endpoint")
    assert client_endpoint.data["endpoint"] == endpoint.data["relayed_as"]  # what the client got
    assert methods(tap.capture, Direction.C2S)[:2] == ["initialize", "notifications/initialized"]


def test_a_streamable_http_tap_leaves_the_endpoint_event_alone(http_server, tmp_path):
    server = http_server(ABSOLUTE_URLS, "absolute-URLs server")
    with running_tap(server.url("/sse"), tmp_path / "tap.jsonl", "--transport", "streamable-http") as tap:
        recorded = cli("record", "--url", tap.url, "--transport", "sse", "--out", str(tmp_path / "client.jsonl"),
                       "--handshake", "legacy", timeout=CLIENT_TIMEOUT)
    # the client saw the server's own address, another origin than the tap's, and refused to send there
    assert recorded.returncode != 0 and "another origin" in recorded.stderr
    endpoint = next(e for e in tap.capture.events if e.kind == Kind.SSE and e.data["event"] == "endpoint")
    assert "relayed_as" not in endpoint.data
    assert tap.capture.header["target"]["transport"] == "streamable-http"


def test_an_absolute_redirect_on_the_servers_origin_keeps_the_client_on_the_tap(http_server, tmp_path):
    server = http_server(ABSOLUTE_URLS, "absolute-URLs server")
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl") as tap:
        recorded = cli("record", "--url", tap.url, "--out", str(tmp_path / "client.jsonl"), "--handshake", "legacy",
                       timeout=CLIENT_TIMEOUT)
        assert recorded.returncode == 0, recorded.stderr
    redirect = http_events(tap.capture, status=307)[0]
    assert redirect.data["response_headers"]["location"] == f"http://127.0.0.1:{server.port}/mcp/"
    assert redirect.data["location_relayed_as"] == f"http://127.0.0.1:{tap.port}/mcp/"
    client_urls = {e.data["url"] for e in read_capture(tmp_path / "client.jsonl").events
                   if e.kind == Kind.HTTP and "url" in e.data}
    assert client_urls == {tap.url, f"http://127.0.0.1:{tap.port}/mcp/"}  # never the server's own address
    assert methods(tap.capture, Direction.C2S).count("initialize") == 2  # the redirected POST, then /mcp/


def test_a_response_stream_resumed_with_last_event_id_goes_through_the_tap(http_server, tmp_path):
    server = http_server([*MISBEHAVING, "resumes-after-close"], "misbehaving server (resumes-after-close)")
    send = tmp_path / "send.jsonl"
    send.write_text(json.dumps({"method": "tools/call", "params": {"name": "echo", "arguments": {"message": "again"}}}))
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl") as tap:
        recorded = cli("record", "--url", tap.url, "--out", str(tmp_path / "client.jsonl"), "--send", str(send),
                       "--handshake", "legacy", timeout=CLIENT_TIMEOUT)
        assert recorded.returncode == 0, recorded.stderr
    resumed = [e for e in http_events(tap.capture, method="GET")
               if e.data.get("purpose", "").startswith("resume after event prime-")]
    assert resumed and resumed[0].data["request_headers"]["last-event-id"].startswith("prime-")
    answer = next(e for e in messages(tap.capture, Direction.S2C) if e.data.get("request_method") == "tools/call")
    assert answer.data["exchange"] == resumed[0].data["exchange"]


# -- https towards the server --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def self_signed(tmp_path_factory):
    """An https MCP server whose certificate, made for the test, is self-signed; yields (URL, certificate)."""
    folder = tmp_path_factory.mktemp("https")
    certificate = make_certificate(folder / "cert")
    with https_server(folder, certificate) as port:
        yield f"https://127.0.0.1:{port}/mcp", certificate


def record_through(tap, folder: Path):
    return cli("record", "--url", tap.url, "--out", str(folder / "client.jsonl"), "--handshake", "legacy",
               timeout=CLIENT_TIMEOUT)


def test_ca_file_lets_the_tap_reach_a_self_signed_server_it_refuses_without_it(self_signed, tmp_path):
    url, certificate = self_signed
    with running_tap(url, tmp_path / "refused.jsonl") as tap:
        refused = record_through(tap, tmp_path)
    assert refused.returncode != 0
    assert "502" in refused.stderr and "certificate was refused" in refused.stderr, refused.stderr
    with running_tap(url, tmp_path / "trusted.jsonl", "--ca-file", str(certificate.cert)) as tap:
        trusted = record_through(tap, tmp_path)
    assert trusted.returncode == 0, trusted.stderr
    assert messages(tap.capture, Direction.S2C), "the server's answers came through the tap"
    assert tap.capture.header["target"]["ca_file"] == str(certificate.cert)


def test_insecure_lets_the_tap_reach_a_self_signed_server_and_the_capture_says_so(self_signed, tmp_path):
    url, _ = self_signed
    with running_tap(url, tmp_path / "tap.jsonl", "--insecure") as tap:
        recorded = record_through(tap, tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    assert tap.capture.header["target"]["insecure"] is True
    assert tap.stderr.count("--insecure: TLS certificates are not verified") == 1, tap.stderr


# -- failures and the end -------------------------------------------------------------------------------------


def test_a_server_that_cannot_be_reached_gets_the_client_a_502_and_the_capture_its_message(tmp_path):
    port = http_support.free_port()  # nothing listens there
    with running_tap(f"http://127.0.0.1:{port}/mcp", tmp_path / "tap.jsonl") as tap:
        with httpx.Client(trust_env=False) as client:
            answer = client.post(tap.url, content=b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
                                 headers={"Content-Type": "application/json"})
    assert answer.status_code == 502
    assert answer.text.startswith("mcp-inspector tap: POST ") and "connection refused" in answer.text
    assert [e.method for e in messages(tap.capture, Direction.C2S)] == ["ping"]
    failed = http_events(tap.capture, method="POST")[0]
    assert "connection refused" in failed.data["error"] and "status" not in failed.data


def test_sigint_ends_the_tap_with_the_capture_complete_and_an_open_stream_recorded_as_ended(http_server, tmp_path):
    server = http_server(ABSOLUTE_URLS, "absolute-URLs server")
    with running_tap(server.url("/sse"), tmp_path / "tap.jsonl", "--transport", "sse") as tap:
        with httpx.Client(trust_env=False, timeout=CLIENT_TIMEOUT) as client, \
                client.stream("GET", tap.url, headers={"Accept": "text/event-stream"}) as stream:
            lines = stream.iter_lines()  # kept: a dropped iterator closes the connection
            assert next(lines) == "event: endpoint"
            assert tap.stop(signal.SIGINT) == 0
            del lines
    events = tap.capture.events
    end = http_events(tap.capture, phase="end")[0]
    assert end.data["error"] == "the tap was stopped (SIGINT) while this exchange was under way"
    assert events[-1].data == {"what": "closed", "by": "SIGINT", "exchanges": 1, "refused": 0}
    assert "the capture is complete" in tap.stderr and "Traceback" not in tap.stderr


# -- what each option does ------------------------------------------------------------------------------------


def test_listen_on_ipv6_loopback_serves_the_client_there_and_nowhere_else(http_server, tmp_path):
    server = http_server([*MISBEHAVING, "good"], "misbehaving server (good)")
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl", listen="[::1]:0") as tap:
        assert tap.url.startswith("http://[::1]:")
        assert listening_ports_of(tap.process.pid) == [("00000000000000000000000001000000", tap.port)]  # ::1
        with httpx.Client(trust_env=False) as client:
            answer = client.post(tap.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert answer.status_code == 200 and answer.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", tap.port)) != 0  # not on the IPv4 loopback


def test_transport_websocket_gives_a_ws_url_for_an_http_url_and_the_upgrade_goes_through(ws_url, tmp_path):
    http_form = "http://" + ws_url.removeprefix("ws://")
    with running_tap(http_form, tmp_path / "tap.jsonl", "--transport", "websocket") as tap:
        assert tap.url.startswith("ws://127.0.0.1:")
        recorded = cli("record", "--url", tap.url, "--transport", "websocket", "--out", str(tmp_path / "c.jsonl"),
                       "--handshake", "legacy", timeout=CLIENT_TIMEOUT)
        assert recorded.returncode == 0, recorded.stderr
    assert tap.capture.header["target"]["transport"] == "websocket"
    assert http_events(tap.capture, status=101)


def test_a_ws_url_with_another_transport_is_refused_with_one_sentence(tmp_path):
    result = cli("tap", "--url", "ws://127.0.0.1:9/ws", "--transport", "sse", "--no-live")
    assert result.returncode == EXIT_BAD_INPUT
    assert result.stderr == ("mcp-inspector tap: --url 'ws://127.0.0.1:9/ws' is a WebSocket URL; --transport sse "
                             "cannot reach it\n")


@pytest.mark.parametrize("args, says", [
    (["--url", "ftp://example.com/x"], "--url 'ftp://example.com/x' is not an http://, https://"),
    (["--url", "http://127.0.0.1:9/mcp", "--", "python", "server.py"], "give either --url"),
    (["--listen", "127.0.0.1:0", "--", "python", "server.py"], "--listen and --transport go with --url"),
    (["--transport", "sse", "--", "python", "server.py"], "--listen and --transport go with --url"),
    (["--insecure", "--", "python", "server.py"], "--ca-file and --insecure go with --url"),
    (["--url", "https://127.0.0.1:9/mcp", "--ca-file", "/no/such/ca.pem"], "--ca-file /no/such/ca.pem: no such file"),
])
def test_options_that_do_not_fit_together_are_one_sentence(args, says):
    result = cli("tap", "--no-live", *args)
    assert result.returncode == EXIT_BAD_INPUT
    assert result.stderr.startswith("mcp-inspector tap: ") and says in result.stderr
    assert result.stderr.count("\n") == 1


def test_max_message_bounds_what_the_capture_keeps_whole_but_the_client_gets_every_byte(http_server, tmp_path):
    server = http_server([*MISBEHAVING, "good"], "misbehaving server (good)")
    text = "x" * 5000
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl", "--max-message", "1K") as tap:
        with httpx.Client(trust_env=False) as client:
            answer = client.post(tap.url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                                "params": {"name": "echo", "arguments": {"message": text}}})
    assert answer.json()["result"]["content"][0]["text"] == text  # relayed whole
    cut = [e for e in tap.capture.events if e.kind == Kind.FRAMING_ERROR]
    assert [e.dir for e in cut] == [Direction.C2S, Direction.S2C]
    assert all(e.data["oversize"]["total_bytes"] > 5000 and "over the size limit (1 KiB" in e.reason for e in cut)


def test_no_live_keeps_an_http_tap_from_the_window_and_without_it_the_window_gets_the_session(http_server, tmp_path,
                                                                                              short_dir):
    import asyncio

    from inspector.core.tap.channel import listen

    server = http_server([*MISBEHAVING, "good"], "misbehaving server (good)")
    sock = short_dir / "run" / "tap.sock"
    hellos: list[dict] = []
    seen: list[list] = []
    ended = asyncio.Event()

    async def window(connection) -> None:
        hellos.append(connection.hello)
        events: list = []
        seen.append(events)
        async for message in connection.messages():
            events.append(message)
        ended.set()

    def session(tap_url: str) -> None:
        with httpx.Client(trust_env=False) as client:
            client.post(tap_url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})

    async def scenario() -> None:
        async with await listen(sock, window):
            for name, options in (("quiet", ("--no-live",)), ("live", ())):
                with running_tap(server.url("/mcp"), tmp_path / f"{name}.jsonl", "--socket", str(sock), "--name",
                                 name, *options) as tap:
                    await asyncio.to_thread(session, tap.url)
                    assert await asyncio.to_thread(tap.stop) == 0
            await asyncio.wait_for(ended.wait(), 30)

    asyncio.run(scenario())
    assert [hello["name"] for hello in hellos] == ["live"]
    assert hellos[0]["target"]["url"] == server.url("/mcp")
    assert any(getattr(e, "method", None) == "ping" for e in seen[0])
    assert seen[0][-1] == {"type": "end", "exit": 0, "dropped": 0}


def test_a_kept_alive_client_gets_each_answer_without_waiting_for_a_delayed_ack(http_server, tmp_path):
    """With Nagle's algorithm on the tap's side of the client's connection, each answer's body waits for the
    client's delayed ACK: 40 ms and more a request on Linux. Without it, a few milliseconds."""
    import statistics
    import time

    server = http_server(ABSOLUTE_URLS, "absolute-URLs server")

    def pings(url: str) -> list[float]:
        times = []
        with httpx.Client(trust_env=False) as client:
            for n in range(15):
                started = time.perf_counter()
                client.post(url, json={"jsonrpc": "2.0", "id": n, "method": "ping"})
                times.append(time.perf_counter() - started)
        return times

    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl") as tap:
        direct, tapped = pings(server.url("/mcp/")), pings(tap.url + "/")
    added = statistics.median(tapped) - statistics.median(direct)
    shown = {name: [round(t * 1000, 1) for t in times] for name, times in (("direct", direct), ("tap", tapped))}
    # the bug costs a delayed ACK, 40 ms and more, on every request: a median added under 35 ms is not it, whatever
    # else the machine runs (a loaded CI worker's tap added 22 ms)
    assert added < 0.035, f"round trips in ms: {shown}"
