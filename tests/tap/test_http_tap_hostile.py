"""The HTTP tap against the adversarial pass of issue 39 (section 6): pointed at itself, in a loop through another
tap, with clients that give up on a server that never answers, and with clients that send their headers a byte at
a time. Real taps (``mcp-inspector tap --url`` as a user runs it) and real sockets on 127.0.0.1; the hanging server
is the pass's own (tests/data/hostile/upstream.py), whose log says what reached it and when its peer left.
"""

from __future__ import annotations

import sys

import httpx
import pytest
from helpers import cli
from http_tap_support import http_support, port_listens, running_tap

from inspector.core.exits import EXIT_BAD_INPUT
from inspector.core.wire.events import Kind

pytestmark = pytest.mark.integration

MISBEHAVING = [sys.executable, str(http_support.SERVERS / "misbehaving_http_server.py")]
PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
#: Bound on one request through the taps (a loop is cut at its second hop).
CLIENT_TIMEOUT = 30.0


# -- a tap pointed at itself --------------------------------------------------------------------------------


@pytest.mark.report("faults", "the HTTP tap pointed at its own address", surface="CLI", group="hostile",
                    advice="Give the tap the server's URL with --url, and a free port (or none) with --listen.")
@pytest.mark.parametrize("spelling", ["http://127.0.0.1:{port}/mcp", "http://localhost:{port}/mcp",
                                      "http://127.1:{port}/mcp", "http://0.0.0.0:{port}/mcp"])
def test_a_tap_pointed_at_its_own_address_is_refused_with_one_sentence(spelling, tmp_path, report):
    port = http_support.free_port()
    url = spelling.format(port=port)
    result = cli("tap", "--url", url, "--listen", f"127.0.0.1:{port}", "--no-live", "--capture",
                 str(tmp_path / "never.jsonl"), timeout=CLIENT_TIMEOUT)
    assert result.returncode == EXIT_BAD_INPUT, result.stderr
    assert result.stderr == (f"mcp-inspector tap: --url {url} is the tap's own address (http://127.0.0.1:{port}): it "
                             "would relay every request to itself without end; give the server's URL\n")
    assert result.stdout == "" and not (tmp_path / "never.jsonl").exists()
    assert not port_listens(port)
    report.saw(result.stderr.removeprefix("mcp-inspector tap: "))


@pytest.mark.report("faults", "two HTTP taps relaying to each other (a relay loop)", surface="CLI", group="hostile",
                    advice="Point the last tap of a chain at the server itself.")
def test_two_taps_relaying_to_each_other_cut_the_loop_at_its_second_hop(tmp_path, report):
    first, second = http_support.free_port(), http_support.free_port()
    with running_tap(f"http://127.0.0.1:{second}/mcp", tmp_path / "a.jsonl", listen=f"127.0.0.1:{first}") as a, \
            running_tap(f"http://127.0.0.1:{first}/mcp", tmp_path / "b.jsonl", listen=f"127.0.0.1:{second}") as b:
        with httpx.Client(trust_env=False, timeout=CLIENT_TIMEOUT) as client:
            answer = client.post(a.url, content=PING, headers={"Content-Type": "application/json"})
        a.stop()
        b.stop()
    assert answer.status_code == 508
    assert answer.text.startswith("mcp-inspector tap: refused: it came back to this tap")
    assert "answered 508, not relayed" in a.stderr and "came back" not in b.stderr
    relayed = [e for tap in (a, b) for e in tap.capture.events if e.kind == Kind.HTTP and e.data.get("method")]
    assert len(relayed) == 2  # the client's request, relayed once by each tap
    report.saw(answer.text.strip())


def test_what_the_tap_relays_carries_its_via_mark_after_the_clients_own_via(http_server, tmp_path):
    server = http_server([*MISBEHAVING, "good"], "misbehaving server")
    with running_tap(server.url("/mcp"), tmp_path / "tap.jsonl") as tap:
        with httpx.Client(trust_env=False, timeout=CLIENT_TIMEOUT) as client:
            answer = client.post(tap.url, content=PING, headers={"Content-Type": "application/json",
                                                                 "Accept": "application/json, text/event-stream",
                                                                 "Via": "1.0 corporate"})
    assert answer.status_code == 200, answer.text
    sent = next(e for e in tap.capture.events if e.kind == Kind.HTTP and e.data.get("method") == "POST")
    via = sent.data["request_headers"]["via"]
    assert via.startswith("1.0 corporate, 1.1 mcp-inspector-tap-"), via
