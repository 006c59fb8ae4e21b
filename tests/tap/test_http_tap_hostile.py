"""The HTTP tap against the adversarial pass of issue 39 (section 6): pointed at itself, in a loop through another
tap, with clients that give up on a server that never answers, and with clients that send their headers a byte at
a time. Real taps (``mcp-inspector tap --url`` as a user runs it) and real sockets on 127.0.0.1; the hanging server
is the pass's own (tests/data/hostile/upstream.py), whose log says what reached it and when its peer left.
"""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from helpers import ROOT, cli, wait_until
from http_tap_support import http_support, port_listens, running_tap, socket_inodes

from inspector.core.exits import EXIT_BAD_INPUT
from inspector.core.tap.http_proxy import CLIENT_LEFT
from inspector.core.wire.events import Kind

pytestmark = pytest.mark.integration

MISBEHAVING = [sys.executable, str(http_support.SERVERS / "misbehaving_http_server.py")]
PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
#: Bound on one request through the taps (a loop is cut at its second hop).
CLIENT_TIMEOUT = 30.0


# -- a tap pointed at itself --------------------------------------------------------------------------------


def refused_self(spelling: str, tmp_path: Path) -> str:
    """``tap --url SPELLING --listen 127.0.0.1:PORT`` with the tap's own port: checks the refusal, returns the
    sentence."""
    port = http_support.free_port()
    url = spelling.format(port=port)
    result = cli("tap", "--url", url, "--listen", f"127.0.0.1:{port}", "--no-live", "--capture",
                 str(tmp_path / "never.jsonl"), timeout=CLIENT_TIMEOUT)
    assert result.returncode == EXIT_BAD_INPUT, result.stderr
    assert result.stderr == (f"mcp-inspector tap: --url {url} is the tap's own address (http://127.0.0.1:{port}): it "
                             "would relay every request to itself without end; give the server's URL\n")
    assert result.stdout == "" and not (tmp_path / "never.jsonl").exists()
    assert not port_listens(port)
    return result.stderr.removeprefix("mcp-inspector tap: ")


@pytest.mark.report("faults", "the HTTP tap pointed at its own address", surface="CLI", group="hostile",
                    advice="Give the tap the server's URL with --url, and a free port (or none) with --listen.")
def test_a_tap_pointed_at_its_own_address_is_refused_with_one_sentence(tmp_path, report):
    report.saw(refused_self("http://localhost:{port}/mcp", tmp_path))


@pytest.mark.parametrize("spelling", ["http://127.0.0.1:{port}/mcp", "http://127.1:{port}/mcp",
                                      "http://0.0.0.0:{port}/mcp"])
def test_any_spelling_of_the_taps_own_address_is_refused_the_same_way(spelling, tmp_path):
    refused_self(spelling, tmp_path)


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


# -- clients that give up, and clients that dribble -------------------------------------------------------


UPSTREAM = ROOT / "tests" / "data" / "hostile" / "upstream.py"
HANG = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "hang", "arguments": {}}}
                  ).encode()
#: How many clients give up at once (the pass's figure).
CLIENTS = 20
#: Bound on the upstream logging what reached it, and on the tap closing what the clients left.
SETTLE = 15.0
TCP_CLOSE_WAIT = "08"


def tcp_sockets(pid: int) -> list[tuple[int, int, str]]:
    """(local port, remote port, state) of every TCP socket process ``pid`` holds (listening ones included)."""
    inodes = socket_inodes(pid)
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[9] in inodes:
                found.append((int(fields[1].rsplit(":", 1)[1], 16), int(fields[2].rsplit(":", 1)[1], 16), fields[3]))
    return found


@contextmanager
def hanging_upstream(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The pass's upstream.py on a free port: (its URL, its log)."""
    log = tmp_path / "upstream.log"
    log.touch()
    for _ in range(3):
        port = http_support.free_port()
        try:
            server = http_support.launch("upstream.py", [sys.executable, str(UPSTREAM), str(port), str(log)],
                                         tmp_path / "upstream.out", port=port)
        except http_support.ServerExited:
            continue
        try:
            yield f"http://127.0.0.1:{port}/mcp", log
            return
        finally:
            http_support.stop(server)
    pytest.fail("upstream.py could not listen on a free port")


def log_count(log: Path, start: str) -> int:
    return sum(1 for line in log.read_text().splitlines() if line.startswith(start))


@pytest.mark.report("faults", f"{CLIENTS} clients giving up on an upstream that never answers, through the HTTP tap",
                    surface="CLI", group="hostile",
                    advice="Nothing to do: the tap closes both sides when a client leaves, and the capture says so.")
def test_clients_that_give_up_on_a_server_that_never_answers_leave_no_socket_behind(tmp_path, report):
    with hanging_upstream(tmp_path) as (url, log), running_tap(url, tmp_path / "tap.jsonl") as tap:
        clients = [socket.create_connection(("127.0.0.1", tap.port), timeout=CLIENT_TIMEOUT) for _ in range(CLIENTS)]
        for raw in clients:
            raw.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\nAccept: "
                        b"application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s"
                        % (tap.port, len(HANG), HANG))
        wait_until(lambda: log_count(log, "POST") == CLIENTS, SETTLE, f"the {CLIENTS} calls to reach the upstream")
        held = tcp_sockets(tap.process.pid)
        for raw in clients:
            raw.close()
        wait_until(lambda: log_count(log, "LEFT") == CLIENTS, SETTLE, "the upstream to see every connection closed")
        wait_until(lambda: [s for s in tcp_sockets(tap.process.pid) if s[0] != tap.port or s[1] != 0] == [],
                   SETTLE, "the tap to close the clients' sockets")
        left = tcp_sockets(tap.process.pid)
        tap.stop()
    assert len(held) == 1 + 2 * CLIENTS  # while they waited: the listening socket, each client's, each upstream
    assert left == [(tap.port, 0, "0A")] and TCP_CLOSE_WAIT not in {state for _, _, state in left}
    ended = [e for e in tap.capture.events if e.kind == Kind.HTTP and "error" in e.data]
    assert len(ended) == CLIENTS and all(e.data["error"] == CLIENT_LEFT for e in ended)
    report.saw(f"{CLIENTS} clients left: {len(held) - 1} sockets while they waited, none after; the capture says "
               f"of each: {CLIENT_LEFT}")
    report.figure("sockets while waiting", len(held))
    report.figure("sockets after the clients left", len(left))
