"""The options of ``replay`` alone (its target options are in test_target_options.py): --yes, --ignore,
--idle and --out, observed in the server's log and the replay's capture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from option_effects_support import HttpServer, ProbeLog, http_requests, inspector, messages, probe, write_messages

from inspector.core.capture import read_capture
from inspector.core.wire.events import Direction

IGNORE_TEXT = "$.result.content[*].text"


@pytest.fixture
def source(tmp_path: Path) -> tuple[Path, ProbeLog]:
    """A capture of the probe server answering ``where`` and ``late``, whose notification comes at once and is
    recorded; the server then exits."""
    log = ProbeLog(tmp_path / "recorded.log")
    cwd = tmp_path / "recorded-in"
    cwd.mkdir()
    send = write_messages(tmp_path / "send.jsonl", [
        {"method": "tools/call", "params": {"name": "where"}},
        {"method": "tools/call", "params": {"name": "late", "arguments": {"delay": 0, "exit": True}}}])
    out = tmp_path / "source.jsonl"
    done, _ = inspector("record", "--out", str(out), "--send", str(send), "--handshake", "legacy", "--idle", "5",
                        "--cwd", str(cwd), "--", *probe(log.path))
    assert done.returncode == 0, done.stderr
    assert late_notes(out) == ["late notification"]
    return out, log


def late_notes(capture: Path) -> list[str]:
    return [e.json()["params"]["data"] for e in messages(read_capture(capture), Direction.S2C,
                                                         "notifications/message")]


def where_text(capture: Path) -> str:
    [answer] = [e for e in messages(read_capture(capture), Direction.S2C) if e.data.get("request_method") ==
                "tools/call" and "cwd" in e.json()["result"]["content"][0]["text"]]
    return str(answer.json()["result"]["content"][0]["text"])


def test_yes_reruns_the_recorded_command_where_ignore_hides_what_changed_and_idle_3_keeps_a_late_notification(
        source, tmp_path):
    """--yes: the command the capture names runs again (here in another --cwd); --ignore: the answer that now
    differs (another working directory) does not count; --idle 3: a notification 1.5 s after the last
    answer is in the replay; --out: the replay's capture is there."""
    capture, log = source
    elsewhere = tmp_path / "replayed-in"
    elsewhere.mkdir()
    out = tmp_path / "replay.jsonl"
    done, _ = inspector("replay", str(capture), "--yes", "--cwd", str(elsewhere), "--env", "PROBE_LATE_DELAY=1.5",
                        "--idle", "3", "--ignore", IGNORE_TEXT, "--out", str(out))
    # --yes: the recorded command ran again (the same log file), in the --cwd given
    assert [start["cwd"] for start in log.starts()] == [str(tmp_path / "recorded-in"), str(elsewhere)], done.stdout
    # --ignore: the answer differs, but the replay matches
    assert json.loads(where_text(out))["cwd"] != json.loads(where_text(capture))["cwd"]
    assert done.returncode == 0, done.stdout + done.stderr
    # --idle 3 and --out
    assert late_notes(out) == ["late notification"]


def test_idle_0_2_ends_the_replay_before_the_late_notification(source, tmp_path):
    capture, _ = source
    out = tmp_path / "replay.jsonl"
    done, _ = inspector("replay", str(capture), "--env", "PROBE_LATE_DELAY=1.5", "--idle", "0.2", "--out", str(out),
                        "--", *probe(tmp_path / "server.log"))
    assert out.exists(), done.stdout + done.stderr
    assert late_notes(out) == []


def test_yes_with_a_capture_of_a_url_sends_the_headers_origin_and_bearer_given(tmp_path, http_probe: HttpServer):
    """replay --yes of a capture recorded over HTTP: -H, --origin and --bearer reach the server it names (they
    were dropped: the recorded target was used as it was)."""
    tag = "yes-url"
    capture = tmp_path / "source.jsonl"
    send = write_messages(tmp_path / "send.jsonl", [{"method": "tools/list"}])
    done, _ = inspector("record", "--out", str(capture), "--send", str(send), "--handshake", "legacy",
                        "--url", http_probe.url(f"/{tag}/mcp"))
    assert done.returncode == 0, done.stderr
    recorded = len(http_requests(http_probe, tag))
    done, _ = inspector("replay", str(capture), "--yes", "--out", str(tmp_path / "replay.jsonl"),
                        "-H", "X-Probe-One: one", "--origin", "http://origin.example", "--bearer", "tok-yes")
    replayed = http_requests(http_probe, tag)[recorded:]
    assert replayed, done.stdout + done.stderr
    for request in replayed:
        headers = request["headers"]
        assert headers.get("x-probe-one") == "one"
        assert headers.get("origin") == "http://origin.example"
        assert headers.get("authorization") == "Bearer tok-yes"
    assert done.returncode == 0, done.stdout + done.stderr
