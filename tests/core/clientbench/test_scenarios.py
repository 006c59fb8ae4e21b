"""The scenario servers and their checks without a process: a client's lines fed to a scenario's script with a
clock of the test's own, both sides recorded through the capture's pipeline as the scenario server does, and the
verdict read from those events."""

from __future__ import annotations

import json
from typing import Any

import pytest

from inspector.core.capture.pipeline import EventPipeline
from inspector.core.clientbench.checks import FAILED, INCOMPLETE, NOT_APPLICABLE, PASSED, CheckResult, scenario_status
from inspector.core.clientbench.names import SCENARIO_NAMES
from inspector.core.clientbench.scenarios import (
    BANNER,
    BIG_RESULT_BYTES,
    CURSORS,
    SCENARIOS,
    SLOW_SECONDS,
    UNKNOWN_NOTIFICATION,
    make,
)
from inspector.core.clientbench.script import ASK_WAIT
from inspector.core.clientbench.server import NOTE_CRASH
from inspector.core.clientbench.verdicts import Outcome, judge
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.framing import LineDecoder


class Dialogue:
    """A client talking to one scenario's script; ``now`` is the test's clock."""

    def __init__(self, name: str, revision: str | None = None) -> None:
        self.name = name
        self.script = make(name, revision)
        self.events: list[Event] = []
        self.pipeline = EventPipeline(keep=self.events)
        self.now = 0.0
        self.c2s = LineDecoder(Direction.C2S)
        self.s2c = LineDecoder(Direction.S2C)
        self.sent: list[Any] = []  # what the server sent, parsed (None for a line that is no JSON)

    def _server(self, lines: list[bytes]) -> list[Any]:
        if lines:
            self.pipeline.push(list(self.s2c.feed(b"".join(x + b"\n" for x in lines))), self.now, self.now)
        parsed = []
        for item in lines:
            try:
                parsed.append(json.loads(item))
            except ValueError:
                parsed.append(None)
        self.sent += parsed
        return parsed

    def send(self, message: dict[str, Any]) -> list[Any]:
        """The client sends ``message``; what the server answers at once."""
        out: list[bytes] = []
        for event in self.c2s.feed(json.dumps(message).encode() + b"\n"):
            self.pipeline.push([event], self.now, self.now)
            out += self.script.receive(event, self.now)
        if self.script.exit_code is not None:
            self.pipeline.push([Event(Kind.NOTE, data={"text": "exit", NOTE_CRASH: True})], self.now, self.now)
        return self._server(out)

    def wait(self, seconds: float) -> list[Any]:
        self.now += seconds
        return self._server(self.script.tick(self.now))

    def request(self, msg_id: Any, method: str, params: dict[str, Any] | None = None) -> list[Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        return self.send(message)

    def notify(self, method: str, params: dict[str, Any] | None = None) -> list[Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        return self.send(message)

    def answer(self, msg_id: Any, result: dict[str, Any]) -> list[Any]:
        return self.send({"jsonrpc": "2.0", "id": msg_id, "result": result})

    def initialize(self, capabilities: dict[str, Any] | None = None, *, initialized: bool = True) -> list[Any]:
        out = self.request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": capabilities or {},
                                             "clientInfo": {"name": "t", "version": "1"}})
        if initialized:
            self.notify("notifications/initialized")
        return out

    def verdict(self, outcome: Outcome | None = None) -> dict[str, CheckResult]:
        checks = judge(self.name, self.events, outcome or Outcome(exit_code=0, seconds=1.0), 30.0)
        return {c.id: c for c in checks}


def test_a_well_behaved_client_passes_the_handshake_scenario() -> None:
    talk = Dialogue("handshake")
    [answer] = talk.initialize()
    assert answer["result"]["protocolVersion"] == "2025-11-25"
    [tools] = talk.request(1, "tools/list")
    assert [t["name"] for t in tools["result"]["tools"]] == ["echo"]
    talk.request(2, "tools/call", {"name": "echo", "arguments": {"text": "hi"}})
    checks = talk.verdict()
    assert {c.status for c in checks.values()} == {PASSED}, checks
    assert set(checks) >= {"messages-valid", "ids-unique", "ended", "initialize-first", "initialized-sent",
                           "initialized-before-requests"}


def test_a_client_without_initialized_that_reuses_an_id_fails_with_checks_naming_both() -> None:
    talk = Dialogue("handshake")
    talk.initialize(initialized=False)
    talk.request(0, "tools/list")
    checks = talk.verdict()
    assert checks["initialized-sent"].status == FAILED
    assert "never sent notifications/initialized" in checks["initialized-sent"].sentence
    assert checks["initialized-before-requests"].status == FAILED
    assert checks["ids-unique"].status == FAILED
    assert "reuses the id 0 of initialize" in checks["ids-unique"].sentence
    assert checks["ids-unique"].spec.endswith("basic#requests")
    assert checks["ids-unique"].seq is not None


def test_a_first_request_other_than_initialize_fails_initialize_first() -> None:
    talk = Dialogue("handshake")
    talk.request(1, "tools/list")
    assert talk.verdict()["initialize-first"].status == FAILED


def test_the_ping_scenario_holds_the_clients_answer_until_its_ping_is_answered() -> None:
    talk = Dialogue("ping")
    talk.initialize()
    [ping] = talk.request(1, "tools/list")
    assert ping["method"] == "ping"
    [tools] = talk.answer(ping["id"], {})
    assert tools["id"] == 1
    assert talk.verdict()["ping-answered"].status == PASSED


def test_a_client_that_ignores_the_ping_gets_its_answer_after_the_wait_and_fails_ping_answered() -> None:
    talk = Dialogue("ping")
    talk.initialize()
    [ping] = talk.request(1, "tools/list")
    assert talk.wait(ASK_WAIT - 0.1) == []
    [tools] = talk.wait(0.2)
    assert tools["id"] == 1
    check = talk.verdict()["ping-answered"]
    assert check.status == FAILED and "never answered the server's ping" in check.sentence


def test_a_ping_answered_with_an_error_fails() -> None:
    talk = Dialogue("ping")
    talk.initialize()
    [ping] = talk.request(1, "tools/list")
    talk.send({"jsonrpc": "2.0", "id": ping["id"], "error": {"code": -32601, "message": "no"}})
    assert talk.verdict()["ping-answered"].status == FAILED


@pytest.mark.parametrize(("name", "capability", "method"), [("sampling", "sampling", "sampling/createMessage"),
                                                            ("elicitation", "elicitation", "elicitation/create"),
                                                            ("roots", "roots", "roots/list")])
def test_a_question_is_asked_only_of_a_client_that_declared_it(name: str, capability: str, method: str) -> None:
    talk = Dialogue(name)
    talk.initialize()
    [tools] = talk.request(1, "tools/list")
    assert tools["id"] == 1
    assert talk.verdict()[f"{name}-answered"].status == NOT_APPLICABLE
    declared = Dialogue(name)
    declared.initialize({capability: {}})
    [asked] = declared.request(1, "tools/list")
    assert asked["method"] == method
    declared.send({"jsonrpc": "2.0", "id": asked["id"], "error": {"code": -1, "message": "User rejected"}})
    check = declared.verdict()[f"{name}-answered"]
    assert check.status == PASSED and "refused" in check.sentence


def test_a_valid_roots_answer_passes_and_silence_fails() -> None:
    talk = Dialogue("roots")
    talk.initialize({"roots": {}})
    [asked] = talk.request(1, "tools/list")
    talk.answer(asked["id"], {"roots": [{"uri": "file:///tmp", "name": "tmp"}]})
    assert talk.verdict()["roots-answered"].status == PASSED
    silent = Dialogue("roots")
    silent.initialize({"roots": {}})
    silent.request(1, "tools/list")
    silent.wait(ASK_WAIT)
    assert silent.verdict()["roots-answered"].status == FAILED


def test_an_invalid_sampling_answer_fails_messages_valid_by_the_judge() -> None:
    talk = Dialogue("sampling")
    talk.initialize({"sampling": {}})
    [asked] = talk.request(1, "tools/list")
    talk.answer(asked["id"], {"role": "assistant"})  # no content, no model
    checks = talk.verdict()
    assert checks["messages-valid:schema"].status == FAILED
    assert scenario_status(list(checks.values())) == FAILED


def test_the_slow_scenario_answers_after_its_delay_and_a_cancel_fails_it() -> None:
    talk = Dialogue("slow")
    talk.initialize()
    assert talk.request(1, "tools/list") == []
    [late] = talk.wait(SLOW_SECONDS)
    assert late["id"] == 1
    assert talk.verdict()["waits-for-slow-answer"].status == PASSED
    impatient = Dialogue("slow")
    impatient.initialize()
    impatient.request(1, "tools/list")
    impatient.wait(0.5)
    impatient.notify("notifications/cancelled", {"requestId": 1})
    assert impatient.wait(SLOW_SECONDS) == []
    assert impatient.verdict()["waits-for-slow-answer"].status == FAILED


def test_the_crash_scenario_exits_at_the_first_request_and_a_client_that_hangs_fails() -> None:
    talk = Dialogue("crash")
    talk.initialize()
    assert talk.request(1, "tools/list") == []
    assert talk.script.exit_code == 1
    assert talk.verdict()["ends-after-crash"].status == PASSED
    hung = talk.verdict(Outcome(timed_out=True, seconds=30.0))
    assert hung["ends-after-crash"].status == FAILED and hung["ended"].status == FAILED


def test_the_junk_banner_comes_before_the_first_answer_and_a_client_that_stops_there_fails() -> None:
    talk = Dialogue("junk-stdout")
    banner, answer = talk.initialize(initialized=False)
    assert banner is None and answer["id"] == 0
    assert any(e.raw == BANNER for e in talk.events)
    assert talk.verdict()["survives-banner"].status == FAILED
    talk.notify("notifications/initialized")
    assert talk.verdict()["survives-banner"].status == PASSED


def test_pagination_serves_three_pages_and_an_invented_cursor_fails_cursor_opaque() -> None:
    talk = Dialogue("pagination")
    talk.initialize()
    names = []
    cursor = None
    for msg_id in (1, 2, 3):
        [page] = talk.request(msg_id, "tools/list", {"cursor": cursor} if cursor else None)
        names += [t["name"] for t in page["result"]["tools"]]
        cursor = page["result"].get("nextCursor")
    assert cursor is None and len(names) == len(CURSORS)
    checks = talk.verdict()
    assert checks["all-pages"].status == PASSED and checks["cursor-opaque"].status == PASSED
    [refused] = talk.request(4, "tools/list", {"cursor": "page-2"})
    assert refused["error"]["code"] == -32602
    assert talk.verdict()["cursor-opaque"].status == FAILED


def test_list_changed_notifies_after_the_first_list_and_serves_the_new_one() -> None:
    talk = Dialogue("list-changed")
    [answer] = talk.initialize()
    assert answer["result"]["capabilities"]["tools"] == {"listChanged": True}
    first, notice = talk.request(1, "tools/list")
    assert notice["method"] == "notifications/tools/list_changed"
    assert talk.verdict()["relists"].status == NOT_APPLICABLE
    [second] = talk.request(2, "tools/list")
    assert {t["name"] for t in second["result"]["tools"]} != {t["name"] for t in first["result"]["tools"]}
    talk.request(3, "tools/call", {"name": "old-tool", "arguments": {}})
    checks = talk.verdict()
    assert checks["relists"].status == PASSED and checks["uses-new-list"].status == FAILED


def test_legacy_fallback_refuses_discover_and_a_client_that_gives_up_fails() -> None:
    talk = Dialogue("legacy-fallback")
    [refused] = talk.request(1, "server/discover", {})
    assert refused["error"]["code"] == -32601
    assert talk.verdict()["falls-back"].status == FAILED
    talk.initialize()
    assert talk.verdict()["falls-back"].status == PASSED


def test_modern_refuses_initialize_with_32022_and_passes_a_client_that_speaks_2026_07_28() -> None:
    talk = Dialogue("modern")
    [refused] = talk.initialize(initialized=False)
    assert refused["error"]["code"] == -32022 and refused["error"]["data"]["supported"] == ["2026-07-28"]
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}
    [found] = talk.request(1, "server/discover", {"_meta": meta})
    assert found["result"]["supportedVersions"] == ["2026-07-28"]
    [tools] = talk.request(2, "tools/list", {"_meta": meta})
    assert tools["result"]["resultType"] == "complete"
    checks = talk.verdict()
    assert checks["adopts-modern"].status == PASSED
    assert checks["meta-on-every-request"].status == PASSED
    legacy_only = Dialogue("modern")
    legacy_only.initialize(initialized=False)
    assert legacy_only.verdict()["adopts-modern"].status == FAILED


def test_a_client_that_sent_nothing_is_incomplete_with_the_reason() -> None:
    checks = judge("handshake", [], Outcome(exit_code=2, seconds=0.1), 30.0)
    assert [c.status for c in checks] == [INCOMPLETE]
    assert "the scenario server never started (it ended with status 2)" in checks[0].sentence
    never = judge("ping", [], Outcome(error="the client's command nosuch cannot be started: No such file"), 30.0)
    assert "cannot be started" in never[0].sentence


def test_every_scenario_has_a_summary_and_a_script_of_its_name() -> None:
    for name, cls in SCENARIOS.items():
        assert cls.summary and make(name).name == name


def test_a_revision_given_is_the_one_the_server_answers_whatever_the_client_asks() -> None:
    assert Dialogue("handshake").initialize()[0]["result"]["protocolVersion"] == "2025-11-25"
    pinned = Dialogue("handshake", "2025-06-18")
    assert pinned.initialize()[0]["result"]["protocolVersion"] == "2025-06-18"


def test_the_command_lines_scenario_names_are_the_scenarios_in_their_order() -> None:
    assert tuple(SCENARIOS) == SCENARIO_NAMES


def test_unknown_notification_comes_before_the_answer_and_a_client_that_stops_there_fails() -> None:
    talk = Dialogue("unknown-notification")
    talk.initialize()
    notice, answer = talk.request(1, "tools/list")
    assert notice["method"] == UNKNOWN_NOTIFICATION and answer["id"] == 1
    assert talk.verdict(Outcome(exit_code=1, seconds=1.0))["survives-unknown-notification"].status == FAILED
    assert talk.verdict(Outcome(exit_code=0, seconds=1.0))["survives-unknown-notification"].status == PASSED
    talk.request(2, "tools/call", {"name": "echo", "arguments": {}})
    assert talk.verdict(Outcome(exit_code=1, seconds=1.0))["survives-unknown-notification"].status == PASSED


def test_duplicate_response_answers_the_first_request_after_the_handshake_twice() -> None:
    talk = Dialogue("duplicate-response")
    talk.initialize()
    first, second = talk.request(1, "tools/list")
    assert first == second
    assert talk.request(2, "tools/list")[0]["id"] == 2
    assert talk.verdict()["survives-duplicate-response"].status == PASSED
    hung = Dialogue("duplicate-response")
    hung.initialize()
    hung.request(1, "tools/list")
    assert hung.verdict(Outcome(timed_out=True))["survives-duplicate-response"].status == FAILED


def test_big_result_answers_a_tool_call_with_megabytes_and_is_not_applicable_without_a_call() -> None:
    talk = Dialogue("big-result")
    talk.initialize()
    talk.request(1, "tools/list")
    assert talk.verdict()["survives-big-result"].status == NOT_APPLICABLE
    [big] = talk.request(2, "tools/call", {"name": "echo", "arguments": {"text": "x"}})
    assert len(big["result"]["content"][0]["text"]) == BIG_RESULT_BYTES
    assert talk.verdict()["survives-big-result"].status == PASSED


def test_no_answer_never_answers_and_passes_a_client_that_cancels() -> None:
    talk = Dialogue("no-answer")
    talk.initialize()
    assert talk.request(1, "tools/list") == []
    assert talk.wait(3600) == []
    hung = talk.verdict(Outcome(timed_out=True, seconds=30.0))["cancels-on-timeout"]
    assert hung.status == FAILED and "never cancelled" in hung.sentence
    assert talk.verdict()["cancels-on-timeout"].status == FAILED
    talk.notify("notifications/cancelled", {"requestId": 1, "reason": "timed out"})
    assert talk.verdict()["cancels-on-timeout"].status == PASSED
    assert talk.request(2, "tools/list")[0]["id"] == 2
