"""The HTTP tap's relay in this process (inspector/core/tap/http_proxy.py), on real loopback sockets (issue 39,
section 6): a client that leaves while the server has not answered gets the request to the server cancelled (the
server sees its connection close) and the capture told; a client that sends its request head a byte at a time, or
opens a connection and says nothing, is not held past REQUEST_HEAD_TIMEOUT (shortened for the test)."""

from __future__ import annotations

import asyncio
import json
import select
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from helpers import until

from inspector.core.tap import http_proxy
from inspector.core.tap.http_proxy import CLIENT_LEFT, HttpProxy, bind
from inspector.core.tap.options import EXCHANGE, HTTP_RESPONSE_END, TapOptions

#: The bound under test, shortened: a dribbling client is cut off after this long, however steadily it sends.
HEAD_TIMEOUT = 0.3
#: How long the client waits for the tap's answer between two bytes of its head.
BETWEEN_BYTES = 0.05
#: Bound on a whole case.
CASE_TIMEOUT = 10.0
#: How often a test server's loop looks for its shutdown (the standard library's 0.5 s, per server, adds up).
SHUTDOWN_POLL = 0.02
HEAD = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + b"X-Pad: a\r\n" * 10_000


class Frames:
    """The recorder's end of the spool: the frames the relay sends, kept."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, bytes]] = []

    def send(self, tag: int, data: bytes = b"") -> None:
        self.sent.append((tag, data))


async def with_tap(case: Any, upstream: str = "http://127.0.0.1:9/mcp") -> Any:
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    frames = Frames()
    proxy = HttpProxy(TapOptions(url=upstream), frames, port)
    server = await asyncio.start_server(proxy.connection, sock=sock)
    try:
        return await case(port, frames), frames
    finally:
        server.close()
        await proxy.stop("the test ended")
        sock.close()


@pytest.fixture
def short_head_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_proxy, "REQUEST_HEAD_TIMEOUT", HEAD_TIMEOUT)


async def dribble(port: int, frames: Frames) -> tuple[bytes, int, float]:
    """Send HEAD a byte at a time until the tap answers or closes: (its answer, bytes sent, seconds)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    started = time.monotonic()
    sent = 0
    answer = b""
    try:
        for byte in HEAD:
            writer.write(bytes([byte]))
            await writer.drain()
            sent += 1
            try:
                answer = await asyncio.wait_for(reader.read(), BETWEEN_BYTES)  # until the tap closes
                break
            except TimeoutError:
                continue
    finally:
        writer.close()
    return answer, sent, time.monotonic() - started


@pytest.mark.report("faults", "a client sending its request head to the HTTP tap a byte at a time (slowloris)",
                    surface="core", group="hostile",
                    advice="Nothing to do: the tap answers 408 and closes the connection after REQUEST_HEAD_TIMEOUT.")
def test_a_client_sending_its_head_a_byte_at_a_time_is_answered_408_and_closed_at_the_bound(short_head_timeout,
                                                                                           report):
    (answer, sent, seconds), frames = asyncio.run(asyncio.wait_for(with_tap(dribble), CASE_TIMEOUT))
    said = answer.split(b"\r\n\r\n", 1)[-1].decode().strip()
    report.saw(said.replace(f"{HEAD_TIMEOUT:g} s", "30 s (REQUEST_HEAD_TIMEOUT, shortened here)"))
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert b"the request's head did not arrive whole within 0.3 s" in answer
    assert HEAD_TIMEOUT <= seconds < HEAD_TIMEOUT + 2.0 and sent < len(HEAD)
    assert frames.sent == []  # nothing was relayed or recorded


def test_a_client_that_writes_again_before_reading_the_408_still_reads_it(short_head_timeout):
    """A lingering close: the tap shuts its side and drops what the client still sends for a while. A socket
    closed with the client's later bytes arriving makes the kernel reset the connection, and the client, which
    had not read the 408 yet, loses it (ConnectionResetError instead of the answer)."""
    def pause_then_write(port: int) -> bytes:
        with socket.create_connection(("127.0.0.1", port), timeout=CASE_TIMEOUT) as sock:
            sock.sendall(HEAD[:40])
            sock.recv(1, socket.MSG_PEEK)  # until the tap's 408 has arrived, left unread
            for _ in range(3):
                sock.sendall(b"X-Pad: a\r\n")  # the client writes a little more before it reads
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
            return answer

    async def case(port: int, frames: Frames) -> bytes:
        return await asyncio.to_thread(pause_then_write, port)

    answer, _ = asyncio.run(asyncio.wait_for(with_tap(case), CASE_TIMEOUT))
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]


def test_a_connection_that_says_nothing_is_closed_at_the_bound_without_an_answer(short_head_timeout):
    async def silent(port: int, frames: Frames) -> tuple[bytes, float]:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        started = time.monotonic()
        try:
            return await asyncio.wait_for(reader.read(), CASE_TIMEOUT), time.monotonic() - started
        finally:
            writer.close()

    (answer, seconds), _ = asyncio.run(asyncio.wait_for(with_tap(silent), CASE_TIMEOUT))
    assert answer == b""
    assert HEAD_TIMEOUT <= seconds + 0.05 < HEAD_TIMEOUT + 2.0



class Silent(ThreadingHTTPServer):
    """A server that reads each request and never answers; it counts the requests that reached it and the
    connections whose other end (the tap) closed."""

    daemon_threads = True

    def __init__(self) -> None:
        self.arrived = threading.Semaphore(0)
        self.closed = threading.Semaphore(0)
        super().__init__(("127.0.0.1", 0), _Silent)


class _Silent(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Silent

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.arrived.release()
        select.select([self.connection], [], [], CASE_TIMEOUT)  # readable: the tap closed the connection
        if self.connection.recv(1, 0x2) == b"":  # MSG_PEEK: an end of file, not more bytes
            self.server.closed.release()
        self.close_connection = True


def ended(frames: Frames) -> list[str]:
    return [json.loads(data[EXCHANGE.size:]).get("error", "") for tag, data in frames.sent if tag == HTTP_RESPONSE_END]


@pytest.mark.parametrize("clients", [1, 5])
def test_a_client_that_leaves_before_the_server_answers_gets_the_request_upstream_cancelled(clients):
    server = Silent()
    threading.Thread(target=server.serve_forever, args=(SHUTDOWN_POLL,), daemon=True).start()
    call = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "hang"}}).encode()

    async def leave(port: int, frames: Frames) -> tuple[int, int]:
        loop = asyncio.get_running_loop()
        streams = [await asyncio.open_connection("127.0.0.1", port) for _ in range(clients)]
        for _, writer in streams:
            writer.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n%s" % (port, len(call), call))
        arrived = [await loop.run_in_executor(None, server.arrived.acquire, True, CASE_TIMEOUT)
                   for _ in range(clients)]
        for _, writer in streams:
            writer.close()
        closed = [await loop.run_in_executor(None, server.closed.acquire, True, CASE_TIMEOUT)
                  for _ in range(clients)]
        await until(lambda: len(ended(frames)) == clients, CASE_TIMEOUT, "the relay to record each exchange's end")
        return sum(arrived), sum(closed)

    try:
        (arrived, closed), frames = asyncio.run(asyncio.wait_for(
            with_tap(leave, f"http://127.0.0.1:{server.server_address[1]}/mcp"), CASE_TIMEOUT * 2))
    finally:
        server.shutdown()
        server.server_close()
    assert (arrived, closed) == (clients, clients)  # every connection to the server closed when its client left
    assert ended(frames) == [CLIENT_LEFT] * clients
