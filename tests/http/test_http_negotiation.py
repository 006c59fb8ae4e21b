"""Version negotiation and timeouts over Streamable HTTP, against servers/negotiating_http_server.py (the
stdio negotiating server's logic: a rejected revision is ``400 Bad Request`` with the -32022 error as its body)
and a frozen server.

2026-07-28 Streamable HTTP, backward compatibility: "If the body contains a recognized modern JSON-RPC error,
the server speaks a modern version of MCP — retry using the advertised supported versions"; progress
notifications restart a request's timeout up to ``--max-time`` on a request's SSE stream as on stdio.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from http_support import ServerProcess, header, http_events, notes, one_sentence
from integration.integration_support import Recorded, load_capture, messages, sent_revisions

from inspector.core.exits import EXIT_RPC_ERROR, EXIT_TIMEOUT
from inspector.core.wire.events import Kind

pytestmark = [pytest.mark.integration]

TOOLS_LIST = [{"method": "tools/list"}]


# -- negotiation ------------------------------------------------------------------------------------------


def test_a_400_with_error_32022_to_the_first_discover_is_retried_and_recorded_at_the_listed_revision(
        record: Callable[..., Recorded], negotiating: Callable[..., ServerProcess]) -> None:
    server = negotiating()
    run = record(server.url(), send=TOOLS_LIST)
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    assert sent_revisions(capture) == [("server/discover", "2026-07-28"), ("server/discover", "2026-07-28"),
                             ("tools/list", "2026-07-28")]
    posts = http_events(capture)
    assert [p.data["status"] for p in posts] == [400, 200, 200]
    assert [header(p.data["request_headers"], "mcp-protocol-version") for p in posts] == ["2026-07-28"] * 3
    assert "the server rejected protocol revision 2026-07-28 (error -32022) and supports 2026-07-28, 2025-11-25: " \
           "retrying server/discover with the same revision, as it lists it" in notes(capture)
    assert "transport streamable-http" in run.stdout, "a modern 400 is no reason to try HTTP+SSE"


def test_a_server_that_lists_only_older_revisions_gets_initialize_over_streamable_http(
        record: Callable[..., Recorded], negotiating: Callable[..., ServerProcess]) -> None:
    server = negotiating("--supported", "2025-06-18,2025-03-26")
    run = record(server.url(), send=TOOLS_LIST)
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    assert sent_revisions(capture) == [("server/discover", "2026-07-28"), ("initialize", "2025-06-18"),
                             ("notifications/initialized", None), ("tools/list", None)]
    assert "transport streamable-http" in run.stdout, run.explain()
    assert header(http_events(capture)[-1].data["request_headers"], "mcp-protocol-version") == "2025-06-18"


def test_a_server_that_shares_no_revision_with_us_gets_one_sentence_naming_both_lists_over_http(
        record: Callable[..., Recorded], negotiating: Callable[..., ServerProcess]) -> None:
    server = negotiating("--supported", "2099-01-01")
    run = record(server.url(), send=TOOLS_LIST)
    assert run.returncode == EXIT_RPC_ERROR, run.explain()
    assert one_sentence(run.stderr) == (
        "mcp-inspector: the server and mcp-inspector share no protocol revision: the server supports 2099-01-01; "
        "mcp-inspector speaks 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05")
    assert [m for m, _ in sent_revisions(load_capture(run.out))] == ["server/discover"]


# -- timeouts ---------------------------------------------------------------------------------------------


def test_timeout_bounds_the_whole_auto_handshake_against_a_frozen_http_server(
        record: Callable[..., Recorded], frozen_server: ServerProcess) -> None:
    started = time.monotonic()
    run = record(frozen_server.url("/mcp"), "--timeout", "2", send=TOOLS_LIST)
    elapsed = time.monotonic() - started
    assert run.returncode == EXIT_TIMEOUT, run.explain()
    assert one_sentence(run.stderr).startswith(
        "mcp-inspector: no response to initialize within the handshake's 2 s"), run.explain()
    assert one_sentence(run.stderr).endswith("; raise --timeout to wait longer"), run.explain()
    capture = load_capture(run.out)
    assert [e.method for e in messages(capture, "c2s")] == ["server/discover", "initialize"]
    last_note = [e for e in capture.events if e.kind == Kind.NOTE][-1]
    # the 2 s start with the handshake, just before the probe is written (its t is stamped after: 5 ms once, on
    # a loaded machine)
    assert 1.95 <= last_note.t - messages(capture, "c2s")[0].t < 2.5, "the probe and initialize share the 2 s"
    assert elapsed < 6, f"record took {elapsed:.1f} s"


COUNT = {"method": "tools/call", "params": {"name": "count", "arguments": {"count": 5, "delay_ms": 400}}}


def test_progress_on_the_calls_sse_stream_keeps_a_2_s_call_alive_under_a_1_s_timeout(
        record: Callable[..., Recorded], negotiating: Callable[..., ServerProcess]) -> None:
    run = record(negotiating("--reject", "0").url(), "--timeout", "1", "--progress", send=[COUNT])
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    assert len([e for e in messages(capture, "s2c") if e.method == "notifications/progress"]) == 5
    answer = next(e for e in messages(capture, "s2c") if e.data.get("request_method") == "tools/call")
    assert answer.data["latency"] > 1.5


def test_without_progress_the_same_call_over_http_times_out_naming_timeout(
        record: Callable[..., Recorded], negotiating: Callable[..., ServerProcess]) -> None:
    run = record(negotiating("--reject", "0").url(), "--timeout", "1", send=[COUNT])
    assert run.returncode == EXIT_TIMEOUT, run.explain()
    assert one_sentence(run.stderr) == ("mcp-inspector: no response to tools/call within 1 s; raise --timeout to "
                                        "wait longer")


def test_max_time_ends_a_call_that_keeps_reporting_progress_over_http_naming_max_time(
        record: Callable[..., Recorded], negotiating: Callable[..., ServerProcess]) -> None:
    run = record(negotiating("--reject", "0").url(), "--timeout", "1", "--progress", "--max-time", "1.5",
                 send=[COUNT])
    assert run.returncode == EXIT_TIMEOUT, run.explain()
    sentence = one_sentence(run.stderr)
    assert sentence.startswith("mcp-inspector: no response to tools/call within 1.5 s in all, though it reported "
                               "progress: its response stream is open"), sentence
    assert sentence.endswith("; raise --max-time to wait longer"), sentence


def test_the_timeout_counts_from_the_request_even_when_the_response_headers_come_late(
        record: Callable[..., Recorded], negotiating: Callable[..., ServerProcess]) -> None:
    # the headers come after 2.1 s: counted from them the timeout would end the call at 5.1 s, not 3 s (--timeout
    # bounds the handshake too: 3 s leaves it room on a loaded machine, where 1 s once timed out the initialize)
    stall = {"method": "tools/call", "params": {"name": "stall", "arguments": {"delay_ms": 2100}}}
    run = record(negotiating("--reject", "0").url(), "--timeout", "3", send=[stall])
    assert run.returncode == EXIT_TIMEOUT, run.explain()
    capture = load_capture(run.out)
    call = next(e for e in messages(capture, "c2s") if e.method == "tools/call")
    timed_out = next(e for e in capture.events if e.kind == Kind.NOTE and "no response to tools/call" in e.data["text"])
    # 3 s from the request (its clock starts as it is written, a few ms before its t), not from its headers
    assert 2.95 <= timed_out.t - call.t < 4, "3 s from the request, not 3 s from its response headers"
