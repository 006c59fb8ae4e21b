"""The HTTP tap's rules without I/O (inspector/core/tap/http_guard.py): where it may listen, which Host and
Origin pass, how headers cross, and the endpoint rewrite, byte-exact however the stream is cut."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.tap.http_guard import (
    EndpointRewriter,
    ListenError,
    came_back,
    client_headers,
    host_problem,
    leads_to_itself,
    local_url,
    move_to_tap,
    origin_problem,
    parse_listen,
    upstream_headers,
    via_token,
)

UPSTREAM = "https://api.example.com/v1/sse"
LOCAL = "http://127.0.0.1:8765"


@pytest.mark.parametrize("text, expected", [("127.0.0.1:0", ("127.0.0.1", 0)), ("127.0.0.1:8765", ("127.0.0.1", 8765)),
                                            ("[::1]:8765", ("::1", 8765)), (" 127.0.0.1:80 ", ("127.0.0.1", 80))])
def test_listen_takes_the_loopback_addresses_with_a_port(text, expected):
    assert parse_listen(text) == expected


@pytest.mark.parametrize("text, says", [
    ("0.0.0.0:8765", "is refused: the tap listens only on 127.0.0.1 or [::1]"),
    ("[::]:8765", "is refused"), ("127.0.0.2:8765", "is refused"), ("10.0.0.5:8765", "is refused"),
    ("localhost:8765", "not a name"), ("::1:8765", "in brackets"), ("127.0.0.1", "an address and a port"),
    ("8765", "an address and a port"), ("127.0.0.1:70000", "from 0 to 65535"), ("127.0.0.1:http", "from 0 to 65535"),
])
def test_listen_refuses_anything_else_with_one_sentence(text, says):
    with pytest.raises(ListenError) as refused:
        parse_listen(text)
    assert says in str(refused.value) and str(refused.value).startswith(f"--listen {text!r}")
    assert "\n" not in str(refused.value)


def test_the_local_url_keeps_the_servers_path_and_query_on_the_taps_address():
    assert local_url("https://api.example.com/v1/mcp?team=7", "127.0.0.1", 8765, "auto") == \
        "http://127.0.0.1:8765/v1/mcp?team=7"
    assert local_url("https://api.example.com", "::1", 8765, "auto") == "http://[::1]:8765/"
    assert local_url("wss://api.example.com/ws", "127.0.0.1", 8765, "auto") == "ws://127.0.0.1:8765/ws"
    assert local_url("https://api.example.com/ws", "127.0.0.1", 8765, "websocket") == "ws://127.0.0.1:8765/ws"


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "LOCALHOST:8765", "[::1]:8765"])
def test_a_host_naming_the_tap_passes(host):
    assert host_problem(host, 8765) is None


@pytest.mark.parametrize("host", [None, "evil.example.com:8765", "127.0.0.1:8766", "127.0.0.1", "[::1]",
                                  "127.0.0.1.nip.io:8765", "[::2]:8765", "localhost:8765x"])
def test_a_host_that_is_not_the_tap_is_refused(host):
    problem = host_problem(host, 8765)
    assert problem is not None and ("Host" in problem)


@pytest.mark.parametrize("origin", [None, "http://localhost:6274", "http://127.0.0.1:8765", "https://[::1]:3000"])
def test_no_origin_or_a_page_on_this_machine_passes(origin):
    assert origin_problem(origin) is None


@pytest.mark.parametrize("origin", ["http://evil.example.com", "null", "http://localhost.evil.com",
                                    "file://", "chrome-extension://abc", "http://10.0.0.1:8765"])
def test_an_origin_of_another_site_is_refused(origin):
    problem = origin_problem(origin)
    assert problem is not None and repr(origin) in problem


def test_request_headers_cross_as_they_came_but_for_host_and_the_hop_by_hop_ones():
    came = [(b"Host", b"127.0.0.1:8765"), (b"Authorization", b"Bearer secret"), (b"Connection", b"keep-alive, X-Hop"),
            (b"X-Hop", b"1"), (b"accept", b"application/json, text/event-stream"), (b"Transfer-Encoding", b"chunked"),
            (b"Expect", b"100-continue"), (b"Mcp-Session-Id", b"abc"), (b"X-Twice", b"1"), (b"X-Twice", b"2")]
    assert upstream_headers(came, "https://user:pw@api.example.com:8443/mcp", upgrade=False) == [
        (b"Host", b"api.example.com:8443"), (b"Authorization", b"Bearer secret"),
        (b"accept", b"application/json, text/event-stream"), (b"Mcp-Session-Id", b"abc"), (b"X-Twice", b"1"),
        (b"X-Twice", b"2")]


def test_a_websocket_upgrade_keeps_its_connection_and_upgrade_headers():
    came = [(b"Host", b"127.0.0.1:8765"), (b"Connection", b"Upgrade"), (b"Upgrade", b"websocket"),
            (b"Sec-WebSocket-Key", b"k"), (b"Sec-WebSocket-Protocol", b"mcp")]
    assert upstream_headers(came, "ws://127.0.0.1:9000/ws", upgrade=True) == [
        (b"Host", b"127.0.0.1:9000"), *came[1:]]


def test_response_headers_lose_their_framing_and_an_absolute_location_moves_to_the_tap():
    came = [(b"Content-Type", b"application/json"), (b"Content-Length", b"12"), (b"Transfer-Encoding", b"chunked"),
            (b"Location", b"https://api.example.com/v1/mcp/"), (b"Set-Cookie", b"a=b")]
    headers, moved = client_headers(came, UPSTREAM, LOCAL, keep_length=True)
    assert headers == [(b"Content-Type", b"application/json"), (b"Content-Length", b"12"),
                       (b"Location", b"http://127.0.0.1:8765/v1/mcp/"), (b"Set-Cookie", b"a=b")]
    assert moved == "http://127.0.0.1:8765/v1/mcp/"
    headers, _ = client_headers(came, UPSTREAM, LOCAL, keep_length=False)
    assert b"Content-Length" not in [name for name, _ in headers]


@pytest.mark.parametrize("url, expected", [
    ("https://api.example.com/v1/messages?s=1", "http://127.0.0.1:8765/v1/messages?s=1"),
    ("https://api.example.com:443/m", "http://127.0.0.1:8765/m"),
    ("//api.example.com/m", "//127.0.0.1:8765/m"),
    ("/v1/messages?s=1", None), ("messages?s=1", None),  # relative: it resolves against the tap already
    ("https://other.example.com/m", None), ("http://api.example.com/m", None),  # another origin: left alone
])
def test_only_a_url_on_the_servers_origin_is_moved_to_the_tap(url, expected):
    assert move_to_tap(url, UPSTREAM, LOCAL) == expected


ENDPOINT_STREAM = (b": welcome\r\n\r\nid: 1\r\nevent: endpoint\r\ndata: https://api.example.com/v1/messages?s=1\r\n\r\n"
                   b"event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\r\n\r\n")
REWRITTEN = ENDPOINT_STREAM.replace(b"https://api.example.com/v1/messages", b"http://127.0.0.1:8765/v1/messages")


def relay(stream: bytes, cuts: list[int]) -> tuple[bytes, EndpointRewriter]:
    rewriter = EndpointRewriter(UPSTREAM, LOCAL)
    out, start = b"", 0
    for cut in sorted(set(cuts)) + [len(stream)]:
        out += rewriter.feed(stream[start:cut])
        start = cut
    return out + rewriter.close(), rewriter


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(ENDPOINT_STREAM)), max_size=12))
def test_the_endpoint_rewrite_is_the_same_however_the_stream_is_cut(cuts):
    out, rewriter = relay(ENDPOINT_STREAM, cuts)
    assert out == REWRITTEN
    assert rewriter.rewritten == ("https://api.example.com/v1/messages?s=1", "http://127.0.0.1:8765/v1/messages?s=1")


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([
    b"event: endpoint\ndata: /v1/messages?s=1\n\nevent: message\ndata: {}\n\n",  # relative: nothing to do
    b"event: endpoint\ndata: https://other.example.com/m\n\n",  # another origin: the client's call
    b"event: message\ndata: https://api.example.com/x\n\n",  # not the endpoint event
    b"\xef\xbb\xbfdata: {}\n\nevent: endpoint\ndata: https://api.example.com/late\n\n",  # an endpoint not first
    b"event: endpoint\ndata: https://api.example.com/a\ndata: https://api.example.com/b\n\n",  # two data lines
    b": only comments\n\n: and more\r",
]), st.lists(st.integers(min_value=0, max_value=80), max_size=8))
def test_a_stream_whose_first_event_is_no_endpoint_on_the_server_passes_byte_for_byte(stream, cuts):
    out, rewriter = relay(stream, [c for c in cuts if c <= len(stream)])
    assert out == stream and rewriter.rewritten is None


def test_comments_before_the_first_event_pass_at_once_and_only_the_event_is_held():
    rewriter = EndpointRewriter(UPSTREAM, LOCAL)
    assert rewriter.feed(b": keep-alive\n\n: again\n") == b": keep-alive\n\n: again\n"
    assert rewriter.feed(b"event: endpoint\ndata: https://api.example.com/m") == b""
    assert rewriter.feed(b"\n\n") == b"event: endpoint\ndata: http://127.0.0.1:8765/m\n\n"
    assert rewriter.feed(b"data: later\n\n") == b"data: later\n\n"


def test_a_first_event_too_big_to_hold_is_relayed_unchanged():
    rewriter = EndpointRewriter(UPSTREAM, LOCAL)
    big = b"event: endpoint\ndata: https://api.example.com/" + b"x" * EndpointRewriter.HOLD_LIMIT
    assert rewriter.feed(big) == big and rewriter.done
    assert rewriter.feed(b"\n\n") == b"\n\n" and rewriter.rewritten is None


# -- relaying to itself (issue 39, section 6) ---------------------------------------------------------------


@pytest.mark.parametrize("url", ["http://127.0.0.1:8765/mcp", "http://localhost:8765/", "http://LOCALHOST.:8765/",
                                 "http://127.1:8765/", "http://[::ffff:127.0.0.1]:8765/x", "http://0.0.0.0:8765/",
                                 "ws://127.0.0.1:8765/ws", "http://app.localhost:8765/"])
def test_a_server_url_naming_the_taps_own_address_in_any_spelling_leads_to_itself(url):
    assert leads_to_itself(url, "127.0.0.1", 8765)


@pytest.mark.parametrize(("url", "host", "port"), [("http://127.0.0.1/mcp", "127.0.0.1", 80),
                                                   ("http://[::1]:8765/", "::1", 8765),
                                                   ("http://localhost:8765/", "::1", 8765),
                                                   ("http://[::]:8765/", "::1", 8765)])
def test_the_default_port_and_the_ipv6_loopback_count_too(url, host, port):
    assert leads_to_itself(url, host, port)


@pytest.mark.parametrize("url", ["http://127.0.0.1:8766/mcp", "http://127.0.0.2:8765/", "http://[::1]:8765/",
                                 "http://example.com:8765/", "http://127.0.0.1/mcp"])
def test_another_port_address_or_name_does_not(url):
    assert not leads_to_itself(url, "127.0.0.1", 8765)


def test_a_request_carrying_the_taps_own_via_mark_came_back_and_another_taps_did_not():
    token, other = via_token(), via_token()
    assert token != other and token.startswith("mcp-inspector-tap-")
    relayed = [(b"Host", b"127.0.0.1:1"), (b"Via", f"1.1 proxy, 1.1 {token}".encode())]
    assert came_back(relayed, token)
    assert not came_back(relayed, other)
    assert not came_back([(b"Host", b"127.0.0.1:1")], token)
