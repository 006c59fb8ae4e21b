"""The checks that match the official conformance suite's generic server checks (docs/server-checks.md,
"Beside the official conformance suite"): each passes on a real server that keeps its rule and fails on one
that breaks it, with the exchange that shows it; and each names the suite's check ids it matches."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import warm_python
from http_support import SERVERS, ServerProcess, launch, launch_on_free_port, stop

from inspector.core.check.checks import CHECKS, FAILED, NOT_APPLICABLE, PASSED
from inspector.core.check.context import CheckOptions
from inspector.core.check.runner import CheckRun, Report, run_checks
from inspector.core.connect.target import Target

pytestmark = pytest.mark.integration

BROKEN_HTTP = Path(__file__).resolve().parent / "servers" / "broken_http_server.py"
PARAM_HEADER_SERVER = Path(__file__).resolve().parent / "servers" / "sdk_param_header_server.py"
#: every server here is on 127.0.0.1 and answers in milliseconds; only a probe a server leaves unanswered waits
TIMEOUT = 5.0
#: a whole run: a few dozen small requests per session, two or three sessions
RUN_BOUND = 120.0

#: the checks added beside the suite, at 2026-07-28
MODERN_CHECKS = ("resource-not-found", "resource-not-found-code", "caching-hints", "input-required-not-on-lists",
                 "request-meta-required", "request-meta-client-info-optional", "discover-server-info",
                 "discover-capabilities-match", "unsupported-version-details", "http-method-not-found-404",
                 "http-version-header-mismatch", "http-standard-headers", "http-standard-headers-lenient",
                 "http-host", "error-ids-echoed", "tools-order-stable", "http-concurrent-requests",
                 "subscription-acknowledged")
#: the checks added for the suite's generic checks that had no match (issue 39): 2026-07-28 only ...
MODERN_ADDED = ("subscription-notifications-tagged", "subscription-filter-honored", "no-log-without-log-level",
                "no-requests-on-response-streams", "input-responses-unasked-ignored")
#: ... and at every revision
ADDED = ("tools-listed", "http-loopback-accepted")


def check(url: str, tmp_path: Path, revision: str | None = None, **options: bool) -> Report:
    run = CheckRun(Target(name="server", url=url), tmp_path / "report", revision=revision, timeout=TIMEOUT,
                   options=CheckOptions(**options))
    return asyncio.run(asyncio.wait_for(run_checks(run), RUN_BOUND))


def at(report: Report, revision: str) -> dict[str, object]:
    return {r.check.id: r for r in report.results if r.revision == revision}


def start_broken(mode: str, directory: Path) -> ServerProcess:
    return launch(f"broken HTTP server ({mode})", [sys.executable, str(BROKEN_HTTP), mode, str(directory / "port")],
                  directory / "server.log", port_file=directory / "port")


@pytest.fixture(scope="module")
def sdk_http(tmp_path_factory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("sdk-http")
    server = launch_on_free_port("SDK server (streamable-http)", lambda port: warm_python.command(
        SERVERS / "sdk_http_server.py", "streamable-http", str(port)), folder / "server.log")
    try:
        yield server
    finally:
        stop(server)


@pytest.fixture(scope="module")
def broken_modern(tmp_path_factory) -> Iterator[ServerProcess]:
    server = start_broken("modern", tmp_path_factory.mktemp("broken-modern"))
    try:
        yield server
    finally:
        stop(server)


#: what the broken 2026-07-28 server gets wrong (servers/broken_http_server.py), and a piece of each sentence
BROKEN_MODERN = {
    "resource-not-found": "got a result with empty contents",
    "resource-not-found-code": "got a result, not error -32602",
    "caching-hints": 'tools/list: no ttlMs; resources/list: cacheScope "everyone"',
    "input-required-not-on-lists": "prompts/list answered resultType input_required",
    "request-meta-required": "no _meta got HTTP 200 with a result",
    "request-meta-client-info-optional": "without clientInfo got HTTP 400 with error -32602",
    "discover-server-info": "only in the result body",
    "discover-capabilities-match": "prompts is not declared, yet prompts/list got a result",
    "unsupported-version-details": "data.requested is null",
    "http-method-not-found-404": "initialize got HTTP 400 with error -32000",
    "http-version-header-mismatch": "got HTTP 400 with error -32022",
    "http-standard-headers": "Mcp-Method prompts/list on a tools/list body got HTTP 200 with a result",
    "http-host": "Host evil.example.com to a server on a loopback address got HTTP 200",
    "error-ids-echoed": "error responses did not carry the id of their request (the first: id null",
    "tools-order-stable": "the same 3 tools came in another order",
    "subscription-acknowledged": "subscriptions/listen got error -32601",
}


def test_a_2026_07_28_server_that_breaks_the_stateless_rules_fails_each_check_with_its_exchange(
        broken_modern, tmp_path):
    results = at(check(broken_modern.url("/mcp"), tmp_path), "2026-07-28")
    assert results["handshake"].status == PASSED
    for check_id, piece in BROKEN_MODERN.items():
        result = results[check_id]
        assert result.status == FAILED, (check_id, result.status, result.sentence)
        assert piece in result.sentence, (check_id, result.sentence)
        assert result.seqs and result.exchange, f"{check_id} names no exchange"
    # it takes the header name in any letter case: that check passes here, and fails on the next server
    assert results["http-standard-headers-lenient"].status == PASSED


def test_a_server_that_wants_the_header_name_spelled_mcp_method_fails_the_lenient_header_check(tmp_path):
    server = start_broken("modern-case-sensitive", tmp_path)
    try:
        results = at(check(server.url("/mcp"), tmp_path), "2026-07-28")
    finally:
        stop(server)
    lenient = results["http-standard-headers-lenient"]
    assert lenient.status == FAILED, lenient.sentence
    assert "the header name mcp-method got HTTP 400 with error -32020" in lenient.sentence
    assert "MCP-METHOD" in lenient.sentence


def test_the_sdk_server_passes_every_check_beside_the_suite_at_2026_07_28(sdk_http, tmp_path):
    results = at(check(sdk_http.url("/mcp"), tmp_path, "2026-07-28"), "2026-07-28")
    assert results["handshake"].status == PASSED
    for check_id in MODERN_CHECKS + MODERN_ADDED + ADDED:
        assert results[check_id].status == PASSED, (check_id, results[check_id].status, results[check_id].sentence)
    assert "421" in results["http-host"].sentence
    assert results["lists-answered"].status == PASSED
    # a number for a tool's name cannot be mirrored in Mcp-Name: the header check refuses it first, -32020
    assert results["malformed-params"].status == PASSED and "-32020" in results["malformed-params"].sentence
    # the rules that no longer exist are not applicable, not passed
    for check_id in ("logging-set-level", "resources-subscribe", "http-session-id-ascii"):
        assert results[check_id].status == NOT_APPLICABLE


def test_the_sdk_server_at_2025_11_25_refuses_a_foreign_host_and_issues_a_visible_ascii_session_id(
        sdk_http, tmp_path):
    results = at(check(sdk_http.url("/mcp"), tmp_path, "2025-11-25"), "2025-11-25")
    assert results["http-host"].status == PASSED
    assert results["http-session-id-ascii"].status == PASSED
    for check_id in (*ADDED, "http-notification-202"):
        assert results[check_id].status == PASSED, (check_id, results[check_id].sentence)
    # the handshake's own notifications/initialized is judged too (the suite's server-session-initialized-accepted)
    assert "notifications/initialized" in results["http-notification-202"].sentence
    for check_id in MODERN_ADDED:
        assert results[check_id].status == NOT_APPLICABLE, check_id
    # it declares neither logging nor resources.subscribe: those do not apply, with why
    assert results["logging-set-level"].status == NOT_APPLICABLE
    assert "does not declare the logging capability" in results["logging-set-level"].sentence
    assert results["resources-subscribe"].status == NOT_APPLICABLE
    assert results["http-concurrent-requests"].status == PASSED
    for check_id in (c for c in MODERN_CHECKS if c not in ("http-host", "http-concurrent-requests")):
        assert results[check_id].status == NOT_APPLICABLE, check_id


def test_a_server_that_takes_one_request_at_a_time_fails_the_concurrency_check(tmp_path):
    server = start_broken("one-at-a-time", tmp_path)
    try:
        results = at(check(server.url("/mcp"), tmp_path), "2026-07-28")
    finally:
        stop(server)
    result = results["http-concurrent-requests"]
    assert result.status == FAILED, result.sentence
    # one or two are refused: the first is answered once a second came, and a third may come after it
    assert "of 3 tools/list sent at once were not answered with a result" in result.sentence
    assert "busy: one request at a time" in result.sentence
    assert "409" in result.sentence and result.seqs


@pytest.fixture(scope="module")
def sdk_param_header(tmp_path_factory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("sdk-param-header")
    server = launch_on_free_port("SDK server with an x-mcp-header tool", lambda port: warm_python.command(
        PARAM_HEADER_SERVER, str(port)), folder / "server.log")
    try:
        yield server
    finally:
        stop(server)


def test_the_sdk_server_checks_the_mcp_param_header_of_its_read_only_tool_against_the_body(sdk_param_header,
                                                                                            tmp_path):
    results = at(check(sdk_param_header.url("/mcp"), tmp_path, "2026-07-28", call_tools=True), "2026-07-28")
    for check_id in ("http-param-headers", "http-param-headers-decoded"):
        assert results[check_id].status == PASSED, (check_id, results[check_id].sentence)
    assert "Mcp-Param-Region" in results["http-param-headers"].sentence


def test_mcp_param_headers_are_not_tried_without_leave_to_call_tools(sdk_param_header, tmp_path):
    results = at(check(sdk_param_header.url("/mcp"), tmp_path, "2026-07-28"), "2026-07-28")
    for check_id in ("http-param-headers", "http-param-headers-decoded"):
        assert results[check_id].status == NOT_APPLICABLE
        assert "--call-tools" in results[check_id].sentence


def test_a_server_that_ignores_mcp_param_headers_fails_the_refusal_check(broken_modern, tmp_path):
    results = at(check(broken_modern.url("/mcp"), tmp_path, call_tools=True), "2026-07-28")
    refused = results["http-param-headers"]
    assert refused.status == FAILED, refused.sentence
    assert "Base64 without its padding got HTTP 200 with a result" in refused.sentence
    assert "no header while the body has the value got HTTP 200" in refused.sentence
    assert results["http-param-headers-decoded"].status == PASSED


def test_a_server_that_compares_mcp_param_headers_undecoded_fails_the_decoding_check(tmp_path):
    server = start_broken("modern-case-sensitive", tmp_path)
    try:
        results = at(check(server.url("/mcp"), tmp_path, call_tools=True), "2026-07-28")
    finally:
        stop(server)
    decoded = results["http-param-headers-decoded"]
    assert decoded.status == FAILED, decoded.sentence
    assert "=?base64?SGVsbG8=?= for 'Hello' got HTTP 400 with error -32020" in decoded.sentence


#: what the modern-streams server gets wrong on its event streams (servers/broken_http_server.py), and a piece of
#: each sentence
BROKEN_STREAMS = {
    "tools-listed": "quiet has no description",
    "http-loopback-accepted": "got HTTP 403 with error -32000 (no Origin is trusted here), not a 2xx",
    "subscription-notifications-tagged": "did not carry its id (the first, notifications/tools/list_changed: null)",
    "subscription-filter-honored": "the acknowledgement agrees to promptsListChanged, which was not asked for; 1 "
                                   "notification it did not ask for came (the first: "
                                   "notifications/prompts/list_changed)",
    "no-log-without-log-level": "notifications/message came, though none of the session's",
    "no-requests-on-response-streams": "requests of its own (elicitation/create)",
    "input-responses-unasked-ignored": "with inputResponses nobody asked for got HTTP 400 with error -32602",
}


def test_a_2026_07_28_server_that_gets_its_event_streams_wrong_fails_each_check_added_for_the_suite(tmp_path):
    server = start_broken("modern-streams", tmp_path)
    try:
        results = at(check(server.url("/mcp"), tmp_path), "2026-07-28")
    finally:
        stop(server)
    assert results["subscription-acknowledged"].status == PASSED
    for check_id, piece in BROKEN_STREAMS.items():
        result = results[check_id]
        assert result.status == FAILED, (check_id, result.status, result.sentence)
        assert piece in result.sentence, (check_id, result.sentence)
        assert result.seqs and result.exchange, f"{check_id} names no exchange"


def test_an_initialized_notification_answered_with_200_and_a_body_fails_the_202_check(tmp_path):
    server = start_broken("initialized-200", tmp_path)
    try:
        results = at(check(server.url("/mcp"), tmp_path), "2025-11-25")
    finally:
        stop(server)
    result = results["http-notification-202"]
    assert result.status == FAILED, result.sentence
    # the check's own notification got 202: only the handshake's is named
    assert result.sentence == "the handshake's notifications/initialized POST got HTTP 200 with 18 bytes of body"
    assert len(result.seqs) == 2


def test_a_session_id_with_a_space_fails_the_visible_ascii_check(tmp_path):
    server = start_broken("spaced-session-id", tmp_path)
    try:
        results = at(check(server.url("/mcp"), tmp_path), "2025-11-25")
    finally:
        stop(server)
    result = results["http-session-id-ascii"]
    assert result.status == FAILED, result.sentence
    assert "'session 1'" in result.sentence and result.seqs



@pytest.mark.npm
def test_server_everything_takes_set_level_and_subscriptions_but_serves_a_foreign_host(everything_http, tmp_path):
    results = at(check(everything_http.url("/mcp"), tmp_path), "2025-11-25")
    for check_id in ("logging-set-level", "resources-subscribe", "resources-unsubscribe", "http-session-id-ascii",
                     "lists-answered", "http-concurrent-requests"):
        assert results[check_id].status == PASSED, (check_id, results[check_id].sentence)
    # the suite's localhost-host-rebinding-rejected fails on it too (docs/server-checks.md)
    assert results["http-host"].status == FAILED
    assert "got HTTP 200, not a 4xx" in results["http-host"].sentence


def test_every_check_added_beside_the_suite_names_the_suite_checks_it_matches():
    added = {c.id: c for c in CHECKS if c.id in MODERN_CHECKS + MODERN_ADDED + ADDED or c.id in (
        "logging-set-level", "resources-subscribe", "resources-unsubscribe", "http-session-id-ascii",
        "lists-answered", "http-param-headers", "http-param-headers-decoded")}
    assert len(added) == len(MODERN_CHECKS) + len(MODERN_ADDED) + len(ADDED) + 7
    for check_id, found in added.items():
        assert found.conformance, check_id
        assert all(isinstance(i, str) and i == i.strip() and i for i in found.conformance), check_id
    named = [i for c in added.values() for i in c.conformance]
    assert len(named) == len(set(named)), "a suite check is named by two of ours"
