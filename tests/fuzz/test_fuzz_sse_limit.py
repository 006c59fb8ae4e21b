"""The SSE decoder with a limit (``max_event_bytes``, what the HTTP transports give it from ``--max-message``):
whatever bytes come in whatever chunks, it never raises, an event within the limit comes out exactly as
without one, and an event over it comes out marked ``oversize`` with no more than its head kept (issue 26:
every read from a server has a limit)."""

from __future__ import annotations

from fuzz_support import chunked, pieces_and_bytes
from hypothesis import given, settings
from test_fuzz_sse import PIECES, expected, seen

from inspector.core.wire.sse import OVER_KEEP_BYTES, SSEDecoder


def decode(chunks: list[bytes], limit: int | None) -> tuple[list, SSEDecoder]:
    decoder = SSEDecoder(max_event_bytes=limit)
    events = []
    for chunk in chunks:
        events += decoder.feed(chunk)
    events += decoder.close()
    return events, decoder


@settings(max_examples=300, deadline=None)
@given(case=chunked(pieces_and_bytes(PIECES)))
def test_a_limit_no_event_reaches_changes_nothing(case):
    stream, chunks = case
    events, decoder = decode(chunks, len(stream) + 1)
    want, comments, incomplete, last_id = expected(stream)
    assert [seen(e) for e in events] == want
    assert (decoder.total_comments, decoder.incomplete_bytes, decoder.last_event_id) == (comments, incomplete, last_id)


@settings(max_examples=300, deadline=None)
@given(case=chunked(pieces_and_bytes(PIECES)))
def test_events_over_a_small_limit_are_marked_and_the_others_are_exact(case):
    stream, chunks = case
    limit = 12
    events, _ = decode(chunks, limit)
    want, _, _, _ = expected(stream)
    assert len(events) == len(want)
    for got, wanted in zip(events, want, strict=True):
        if got.oversize:
            assert got.oversize > limit and len(got.raw) <= OVER_KEEP_BYTES and got.sse.data == ""
        else:
            assert seen(got) == wanted


def test_a_gigabyte_line_costs_its_head_not_its_length():
    decoder = SSEDecoder(max_event_bytes=1 << 20)
    out = decoder.feed(b'event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{"pad":"')
    chunk = b"x" * (1 << 20)
    for _ in range(64):
        out += decoder.feed(chunk)
    out += decoder.feed(b'"}}\n\nevent: message\ndata: {"jsonrpc":"2.0","method":"ok"}\n\n')
    assert len(out) == 2
    big, after = out
    assert big.oversize > 64 << 20 and big.data_head.startswith(b'{"jsonrpc":"2.0","id":7,"result"')
    assert len(big.raw) <= OVER_KEEP_BYTES
    assert after.oversize == 0 and after.sse.data == '{"jsonrpc":"2.0","method":"ok"}'
