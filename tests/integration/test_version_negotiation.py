"""Protocol version negotiation over stdio, against servers/negotiating_server.py, which rejects the first
request (``UnsupportedProtocolVersionError``, -32022, or initialize's "Unsupported protocol version") naming
the revisions it supports.

2026-07-28 versioning: "The client SHOULD select a mutually supported version from the supported list and
retry the request, or surface an error to the user if no compatible version exists"; stdio backward
compatibility: a recognized modern error means "use one of the versions in its advertised supported list";
2025-11-25 lifecycle: initialize is rejected with ``data.supported``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest
from integration_support import (
    SERVERS,
    Recorded,
    errors_on_stderr,
    load_capture,
    messages,
    sent_revisions,
)

from inspector.core.capture import Capture
from inspector.core.exits import EXIT_RPC_ERROR
from inspector.core.wire.events import Kind

pytestmark = [pytest.mark.integration]

TOOLS_LIST = [{"method": "tools/list"}]


def negotiating(*args: str) -> list[str]:
    return [sys.executable, str(SERVERS / "negotiating_server.py"), *args]


def notes(capture: Capture) -> list[str]:
    return [str(e.data.get("text")) for e in capture.events if e.kind == Kind.NOTE]


def the_error(run: Recorded) -> str:
    """The one sentence on stderr (no traceback)."""
    errors = errors_on_stderr(run.stderr)
    assert len(errors) == 1 and "Traceback" not in run.stderr, run.explain()
    return errors[0].removeprefix("mcp-inspector: ")


def test_a_server_that_rejects_the_first_discover_listing_our_revision_is_recorded_at_it_after_one_retry(
        record: Callable[..., Recorded]) -> None:
    run = record(negotiating(), send=TOOLS_LIST)
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    assert sent_revisions(capture) == [("server/discover", "2026-07-28"), ("server/discover", "2026-07-28"),
                             ("tools/list", "2026-07-28")]
    assert "the server rejected protocol revision 2026-07-28 (error -32022) and supports 2026-07-28, 2025-11-25: " \
           "retrying server/discover with the same revision, as it lists it" in notes(capture)
    assert [e.json().get("error", {}).get("code") for e in messages(capture, "s2c")] == [-32022, None, None]


def test_a_server_that_lists_only_older_revisions_gets_initialize_at_the_newest_one_both_speak(
        record: Callable[..., Recorded]) -> None:
    run = record(negotiating("--supported", "2024-11-05,2025-06-18,2023-01-01"), send=TOOLS_LIST)
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    assert sent_revisions(capture) == [("server/discover", "2026-07-28"), ("initialize", "2025-06-18"),
                             ("notifications/initialized", None), ("tools/list", None)]
    assert "the server rejected protocol revision 2026-07-28 (error -32022) and supports 2024-11-05, 2025-06-18, " \
           "2023-01-01: falling back to initialize, at a revision both speak" in notes(capture)


def test_a_server_that_shares_no_revision_with_us_gets_one_sentence_naming_both_lists(
        record: Callable[..., Recorded]) -> None:
    run = record(negotiating("--supported", "2099-01-01,2098-06-30"), send=TOOLS_LIST)
    assert run.returncode == EXIT_RPC_ERROR, run.explain()
    sentence = ("the server and mcp-inspector share no protocol revision: the server supports 2099-01-01, 2098-06-30; "
                "mcp-inspector speaks 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05")
    assert the_error(run) == sentence
    capture = load_capture(run.out)
    assert sent_revisions(capture) == [("server/discover", "2026-07-28")], "nothing to retry with, no initialize"
    assert notes(capture)[-1] == sentence


def test_a_server_that_rejects_the_retry_too_is_given_up_after_one_retry(record: Callable[..., Recorded]) -> None:
    run = record(negotiating("--reject", "5"), send=TOOLS_LIST)
    assert run.returncode == EXIT_RPC_ERROR, run.explain()
    assert the_error(run) == ("the server rejected protocol revision 2026-07-28 again (error -32022), though it lists "
                              "it among those it supports: 2026-07-28, 2025-11-25")
    assert [m for m, _ in sent_revisions(load_capture(run.out))] == ["server/discover", "server/discover"]


def test_the_modern_handshake_retries_at_the_newest_revision_both_speak_when_its_own_is_not_listed(
        record: Callable[..., Recorded]) -> None:
    run = record(negotiating("--reject", "0"), "--handshake", "modern", "--protocol-version", "2027-01-01",
                 send=TOOLS_LIST)
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    assert sent_revisions(capture) == [("server/discover", "2027-01-01"), ("server/discover", "2026-07-28"),
                             ("tools/list", "2026-07-28")]
    assert "the server rejected protocol revision 2027-01-01 (error -32022) and supports 2026-07-28, 2025-11-25: " \
           "retrying server/discover with 2026-07-28" in notes(capture)


def test_the_modern_handshake_does_not_fall_back_to_initialize_and_says_why(record: Callable[..., Recorded]) -> None:
    run = record(negotiating("--supported", "2025-06-18"), "--handshake", "modern", send=TOOLS_LIST)
    assert run.returncode == EXIT_RPC_ERROR, run.explain()
    assert the_error(run) == ("the server rejected protocol revision 2026-07-28 (error -32022) and supports "
                              "2025-06-18; the ones mcp-inspector also speaks (2025-06-18) need initialize, which the "
                              "modern handshake does not send (try --handshake auto)")
    assert [m for m, _ in sent_revisions(load_capture(run.out))] == ["server/discover"]


def test_an_initialize_rejected_with_the_revisions_the_server_supports_is_retried_at_one_of_them(
        record: Callable[..., Recorded]) -> None:
    run = record(negotiating("--supported", "2025-06-18,2025-03-26"), "--handshake", "legacy", send=TOOLS_LIST)
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    assert sent_revisions(capture) == [("initialize", "2025-11-25"), ("initialize", "2025-06-18"),
                             ("notifications/initialized", None), ("tools/list", None)]
    answer = [e for e in messages(capture, "s2c") if e.data.get("request_method") == "initialize"][-1]
    assert answer.json()["result"]["protocolVersion"] == "2025-06-18"
    assert any(n.startswith("the server rejected initialize at 2025-11-25 (Unsupported protocol version (code "
                            "-32602)) and supports 2025-06-18, 2025-03-26: retrying initialize with 2025-06-18")
               for n in notes(capture)), notes(capture)


def test_an_initialize_rejected_by_a_server_that_speaks_only_modern_revisions_says_so(
        record: Callable[..., Recorded]) -> None:
    run = record(negotiating("--supported", "2026-07-28"), "--handshake", "legacy", send=TOOLS_LIST)
    assert run.returncode == EXIT_RPC_ERROR, run.explain()
    assert the_error(run) == ("the server rejected initialize at 2025-11-25 and supports 2026-07-28; the one "
                              "mcp-inspector also speaks (2026-07-28) has no initialize handshake (try --handshake "
                              "modern)")
