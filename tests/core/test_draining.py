"""Reading a finished server's pipes to their end (inspector/core/transports/draining.py): the wait for end of
file is bounded by quiet, not by the clock alone, so a loop starved of CPU past the grace still reads what the
server wrote last (a tap under load once relayed the answer to id 1 and lost the one to id 2)."""

from __future__ import annotations

import asyncio
import os
import sys

from inspector.core.transports import stdio
from inspector.core.transports.draining import readable, wait_while_busy
from inspector.core.transports.stdio import StdioTransport
from inspector.core.wire.events import Kind

#: Writes LINES lines of 64 bytes (512 KiB, eight of the transport's reads) into a 1 MiB stdout pipe, then exits:
#: all of it is still in the pipe when it has exited.
LINES = 8192
FLOOD_THEN_EXIT = (
    "import fcntl, os\n"
    "fcntl.fcntl(1, 1031, 1 << 20)\n"  # F_SETPIPE_SZ: the whole flood fits, so the server exits before any read
    f"os.write(1, b''.join(b'{{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{{\"i\":%9d}}}}    \\n' % i "
    f"for i in range({LINES})))\n"
)


def run_server(code: str) -> list:
    """Every event of a stdio transport running ``python -c CODE`` until the server has exited and closed."""
    async def scenario() -> list:
        transport = StdioTransport([sys.executable, "-c", code])
        events: list = []
        transport.emit = events.append
        transport.emit_many = events.extend
        await transport.start()
        await asyncio.wait_for(transport.wait_closed(), 60)
        await transport.close()
        return events

    return asyncio.run(scenario())


def test_a_pipe_with_bytes_or_an_end_of_file_not_taken_is_readable_and_an_empty_open_one_is_not():
    read, write = os.pipe()
    try:
        assert not readable([read]), "empty, its writer open"
        os.write(write, b"x")
        assert readable([read])
        os.read(read, 1)
        assert not readable([read])
        os.close(write)
        write = -1
        assert readable([read]), "the end of file is there to take"
        assert not readable([-1]), "a closed transport's descriptor"
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)


def test_the_wait_goes_on_while_busy_and_ends_a_grace_after_it_is_not():
    async def scenario() -> tuple[set, int]:
        never: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        asks = 0

        def busy() -> bool:
            nonlocal asks
            asks += 1
            return asks < 3  # busy at the first two looks, then quiet

        return await wait_while_busy([never], busy, grace=0.001, limit=60), asks

    pending, asks = asyncio.run(scenario())
    assert len(pending) == 1 and asks == 3


def test_a_server_whose_last_output_is_still_in_the_pipe_when_the_grace_ends_is_read_to_the_end(monkeypatch):
    # the starved loop, made certain: no grace at all after the exit, and the server exits before its first read
    monkeypatch.setattr(stdio, "PIPE_DRAIN_GRACE", 0.0)

    events = run_server(FLOOD_THEN_EXIT)
    messages = [e for e in events if e.kind == Kind.MESSAGE]
    assert len(messages) == LINES, f"{len(messages)} of {LINES} lines read before the transport stopped reading"
    assert not [e for e in events if e.kind == Kind.FRAMING_ERROR]


def test_a_pipe_that_never_stops_having_data_is_given_up_at_the_limit():
    async def scenario() -> tuple[set, float]:
        loop = asyncio.get_running_loop()
        never: asyncio.Future[None] = loop.create_future()
        began = loop.time()
        # bounded here too: a broken limit fails the test instead of hanging it
        pending = await asyncio.wait_for(wait_while_busy([never], lambda: True, grace=0.01, limit=0.2), 30)
        return pending, loop.time() - began

    pending, waited = asyncio.run(scenario())
    assert len(pending) == 1
    assert 0.2 <= waited < 5, waited  # the limit, not the grace, and not forever


def test_the_rest_of_the_output_asyncio_has_already_read_is_kept_while_the_reader_is_busy(monkeypatch):
    # found in review: once asyncio has taken the end of file, the pipe says nothing is left, but the reader's
    # buffer still holds the rest while the reader is busy with an earlier batch (a big line in the worker
    # process); stopping then kept 1,092 of 1,600 lines. The first batch here waits until the server has
    # exited and the drain has begun, with no grace at all.
    monkeypatch.setattr(stdio, "PIPE_DRAIN_GRACE", 0.0)
    lines = 1600  # 100 KiB: read whole by asyncio, end of file included, while the first batch waits
    server = f"import os\nos.write(1, {FLOOD_LINE!r} * {lines})\n"
    emit_decoded = StdioTransport._emit_decoded
    batches = 0

    async def slow_first_batch(self, events):
        nonlocal batches
        batches += 1
        if batches == 1:
            try:
                while self.returncode is None:  # the server has exited and the transport knows it
                    await asyncio.sleep(0)
                for _ in range(20):  # and the drain after the exit has had its turns
                    await asyncio.sleep(0)
            except asyncio.CancelledError:  # stopped meanwhile: the batch is still emitted, as the real one is
                self.emit_many(events)
                raise
        await emit_decoded(self, events)

    monkeypatch.setattr(StdioTransport, "_emit_decoded", slow_first_batch)

    messages = [e for e in run_server(server) if e.kind == Kind.MESSAGE]
    assert len(messages) == lines, f"{len(messages)} of {lines} lines kept"


FLOOD_LINE = b'{"jsonrpc":"2.0","method":"n","params":{"i":1}}              \n'
