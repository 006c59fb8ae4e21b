"""The HTTP tap's relay in this process (inspector/core/tap/http_proxy.py), on a real loopback socket: a client
that sends its request head a byte at a time, or opens a connection and says nothing, is not held past
REQUEST_HEAD_TIMEOUT (issue 39, section 6). The bound is shortened for the test; nothing is relayed."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from inspector.core.tap import http_proxy
from inspector.core.tap.http_proxy import HttpProxy, bind
from inspector.core.tap.options import TapOptions

#: The bound under test, shortened: a dribbling client is cut off after this long, however steadily it sends.
HEAD_TIMEOUT = 0.5
#: How long the client waits for the tap's answer between two bytes of its head.
BETWEEN_BYTES = 0.05
#: Bound on a whole case.
CASE_TIMEOUT = 10.0
HEAD = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + b"X-Pad: a\r\n" * 10_000


class Frames:
    """The recorder's end of the spool: the frames the relay sends, kept."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, bytes]] = []

    def send(self, tag: int, data: bytes = b"") -> None:
        self.sent.append((tag, data))


async def with_tap(case: Any) -> Any:
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    frames = Frames()
    proxy = HttpProxy(TapOptions(url="http://127.0.0.1:9/mcp"), frames, port)
    server = await asyncio.start_server(proxy.connection, sock=sock)
    try:
        return await case(port), frames
    finally:
        server.close()
        await proxy.stop("the test ended")
        sock.close()


@pytest.fixture
def short_head_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_proxy, "REQUEST_HEAD_TIMEOUT", HEAD_TIMEOUT)


async def dribble(port: int) -> tuple[bytes, int, float]:
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
    assert b"the request's head did not arrive whole within 0.5 s" in answer
    assert HEAD_TIMEOUT <= seconds < HEAD_TIMEOUT + 2.0 and sent < len(HEAD)
    assert frames.sent == []  # nothing was relayed or recorded


def test_a_connection_that_says_nothing_is_closed_at_the_bound_without_an_answer(short_head_timeout):
    async def silent(port: int) -> tuple[bytes, float]:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        started = time.monotonic()
        try:
            return await asyncio.wait_for(reader.read(), CASE_TIMEOUT), time.monotonic() - started
        finally:
            writer.close()

    (answer, seconds), _ = asyncio.run(asyncio.wait_for(with_tap(silent), CASE_TIMEOUT))
    assert answer == b""
    assert HEAD_TIMEOUT <= seconds + 0.05 < HEAD_TIMEOUT + 2.0

