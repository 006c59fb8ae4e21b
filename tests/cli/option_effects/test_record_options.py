"""The options of ``record`` alone (its target options are in test_target_options.py): each observed where it
acts, in the server's log or in the capture."""

from __future__ import annotations

import json
from pathlib import Path

from option_effects_support import ProbeLog, inspector, messages, probe, write_messages

from inspector.core.capture import read_capture
from inspector.core.wire.events import Direction

LATE = "late notification"


def record_late(tmp_path: Path, idle: str) -> tuple[int, str, list[str]]:
    """record a call to ``late``: answered at once, a notification 1.5 s later, then the server exits. Returns
    the exit status, stderr and the notifications the capture kept."""
    send = write_messages(tmp_path / "send.jsonl", [
        {"method": "tools/call", "params": {"name": "late", "arguments": {"delay": 1.5, "exit": True}}}])
    out = tmp_path / f"idle-{idle}.jsonl"
    done, _ = inspector("record", "--out", str(out), "--send", str(send), "--handshake", "legacy", "--idle", idle,
                        "--", *probe(tmp_path / f"idle-{idle}.log"))
    notes = [e.json()["params"]["data"] for e in messages(read_capture(out), Direction.S2C, "notifications/message")]
    return done.returncode, done.stderr, notes


def test_idle_3_keeps_a_notification_sent_1_5_s_after_the_last_answer(tmp_path):
    code, stderr, notes = record_late(tmp_path, "3")
    assert code == 0, stderr
    assert notes == [LATE]


def test_idle_0_2_ends_the_session_before_that_notification(tmp_path):
    code, stderr, notes = record_late(tmp_path, "0.2")
    assert code == 0, stderr
    assert notes == []


def test_handshake_protocol_version_root_and_answer_reach_the_server(tmp_path):
    """One run: --handshake legacy sends initialize without the server/discover probe, at --protocol-version;
    --root answers roots/list; --answer answers the elicitation and the sampling request; --send's request
    is sent and --out holds the session."""
    log = ProbeLog(tmp_path / "server.log")
    send = write_messages(tmp_path / "send.jsonl", [{"method": "tools/call", "params": {"name": "ask"}}])
    out = tmp_path / "s.jsonl"
    done, _ = inspector("record", "--out", str(out), "--send", str(send), "--handshake", "legacy",
                        "--protocol-version", "2025-06-18", "--root", "file:///probe/root-one",
                        "--answer", "elicitation=decline", "--answer", "sampling=text:probe-sampled",
                        "--", *probe(log.path))
    assert done.returncode == 0, done.stderr
    # --handshake legacy: initialize straight away, no server/discover probe first
    assert log.methods()[:2] == ["initialize", "notifications/initialized"]
    assert "server/discover" not in log.methods()
    # --protocol-version
    assert log.asked_revisions() == ["2025-06-18"]
    # --send: its request reached the server
    assert log.calls() == ["ask"]
    # --root, --answer elicitation=..., --answer sampling=...: the client's answers, as the server got them
    answers = {m["id"]: m.get("result") for m in log.got() if "method" not in m}
    roots, elicitation, sampling = (answers[f"probe-{n}"] for n in (1, 2, 3))
    assert roots == {"roots": [{"uri": "file:///probe/root-one", "name": "root-one"}]}
    assert elicitation == {"action": "decline"}
    assert sampling["content"] == {"type": "text", "text": "probe-sampled"}
    # --out: the capture holds the session, the server's answer to the call included
    capture = read_capture(out)
    [answer] = [e for e in messages(capture, Direction.S2C) if e.data.get("request_method") == "tools/call"]
    assert json.loads(answer.json()["result"]["content"][0]["text"])["roots/list"] == roots
