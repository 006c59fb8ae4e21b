"""`mcp-inspector replay` against real servers: the same server (exit 0), a changed one (exit 1, the diff
printed), one that is gone (exit 2, one sentence), the capture's own command only with --yes, the recorded
capture left untouched, and the replay saved as a capture of its own."""

from __future__ import annotations

import json

import pytest
from helpers import DEMO
from replay_support import ASK_LLM, ECHO, GREET, TOOLS_LIST, versioned

from inspector.core.capture import read_capture
from inspector.core.exits import EXIT_CANNOT_CONNECT, EXIT_TIMEOUT
from inspector.core.wire.events import Direction, Kind

# Every test here runs the CLI end to end against servers in subprocesses: CI's second step runs them, the
# quick suite does not (issue 39: it stays under two minutes as the suite grows).
pytestmark = pytest.mark.integration


def test_a_demo_capture_replayed_against_the_demo_matches(record, replay, tmp_path):
    capture = record(DEMO, [TOOLS_LIST, ECHO], "--handshake", "legacy")
    result = replay(capture, "--out", str(tmp_path / "r.jsonl"), target=DEMO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == (f"replayed 4 of 4 messages (3 recorded answers to compare): everything "
                                              f"matches the recording; the replay is in {tmp_path / 'r.jsonl'}")
    assert result.stderr == ""


def test_a_modern_demo_capture_replays_its_server_discover_and_meta_as_recorded(record, replay, tmp_path):
    capture = record(DEMO, [TOOLS_LIST, ECHO])  # auto: the demo answers server/discover (2026-07-28)
    out = tmp_path / "r.jsonl"
    result = replay(capture, "--out", str(out), target=DEMO)
    assert result.returncode == 0, result.stdout + result.stderr
    recorded = [e.json() for e in read_capture(capture).events if e.dir == Direction.C2S and e.kind == Kind.MESSAGE]
    replayed = [e.json() for e in read_capture(out).events if e.dir == Direction.C2S and e.kind == Kind.MESSAGE]
    assert [m["method"] for m in replayed] == ["server/discover", "tools/list", "tools/call"]
    assert replayed == recorded  # fresh ids happen to be the recorded ones; _meta is kept as it was


@pytest.mark.integration
def test_a_time_server_capture_replayed_against_itself_matches_once_the_time_is_ignored(
        record, replay, time_server, tmp_path):
    call = {"method": "tools/call", "params": {"name": "get_current_time", "arguments": {"timezone": "UTC"}}}
    capture = record(time_server, [TOOLS_LIST, call])
    result = replay(capture, "--out", str(tmp_path / "r.jsonl"), "--ignore", "$.result.content[*].text",
                    "--ignore", "$.result.structuredContent.datetime",
                    "--ignore", "$.result.structuredContent.day_of_week", target=time_server)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "everything matches the recording" in result.stdout


def test_a_changed_server_fails_the_replay_with_the_path_and_both_values(record, replay, tmp_path):
    capture = record(versioned("--version", "1"), [TOOLS_LIST, ECHO, GREET])
    result = replay(capture, "--out", str(tmp_path / "r.jsonl"), target=versioned("--version", "2"))
    assert result.returncode == 1, result.stdout + result.stderr
    greet = next(e for e in read_capture(capture).events if e.method == "tools/call" and b"greet" in e.raw)
    title = f"tools/call #{greet.seq} (recorded id 5 -> now 5)"
    lines = result.stdout.splitlines()
    assert f'{title}: result.content[0].text: "hello, Ada (v1)" -> "hello, Ada (v2)"' in lines
    assert f"{title}: notifications/message: 1 extra" in lines
    assert any(line.endswith('result.serverInfo.version: "1.0" -> "2.0"') for line in lines)
    assert "2 differ from the recording (3 differences)" in lines[-1]
    assert not any("echo" in line or "tools/list" in line for line in lines[:-1])


def test_ignoring_the_changed_paths_makes_the_changed_server_pass_except_for_its_extra_notification(
        record, replay, tmp_path):
    capture = record(versioned("--version", "1"), [GREET])
    result = replay(capture, "--out", str(tmp_path / "r.jsonl"), "--ignore", "$.result.content[*].text",
                    "--ignore", "$.result.serverInfo.version", target=versioned("--version", "2"))
    assert result.returncode == 1
    assert [line.split(": ", 1)[1] for line in result.stdout.splitlines()[:-1]] == ["notifications/message: 1 extra"]


def test_a_server_that_now_exits_on_a_call_is_a_difference_with_the_reason(record, replay, tmp_path):
    capture = record(versioned(), [ECHO, GREET])
    result = replay(capture, "--out", str(tmp_path / "r.jsonl"), target=versioned("--exit-on-greet"))
    assert result.returncode == 1
    line = next(line for line in result.stdout.splitlines() if "(recorded id 4 -> now 4)" in line)
    assert "no answer now (the server exited with code 3 before answering tools/call" in line


def test_a_command_that_does_not_exist_cannot_be_replayed(record, replay, tmp_path):
    capture = record(versioned(), [ECHO])
    result = replay(capture, "--out", str(tmp_path / "r.jsonl"), target=["no-such-mcp-server-anywhere"])
    assert result.returncode == EXIT_CANNOT_CONNECT
    assert result.stderr.startswith("mcp-inspector: cannot replay: the server could not be started: command not "
                                    "found: no-such-mcp-server-anywhere")
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_server_that_exits_at_once_fails_the_handshake(record, replay, tmp_path):
    capture = record(versioned(), [ECHO])
    result = replay(capture, "--out", str(tmp_path / "r.jsonl"), target=versioned("--exit-at-once"))
    assert result.returncode == 2
    assert result.stderr.startswith("mcp-inspector: cannot replay: the handshake failed: the server exited with "
                                    "code 3 before answering")
    assert "versioned: refusing to start" in result.stderr


def test_a_server_that_now_refuses_the_handshake_cannot_be_replayed(record, replay, tmp_path):
    capture = record(versioned(), [ECHO])
    result = replay(capture, "--out", str(tmp_path / "r.jsonl"), target=versioned("--refuse-initialize"))
    assert result.returncode == 2
    assert result.stderr == ("mcp-inspector: cannot replay: the handshake failed: the server answered initialize "
                             "with an error: this build refuses clients (code -32600)\n")
    assert result.stdout.splitlines()[-1].startswith("replayed 2 of 4 messages (3 recorded answers to compare): "
                                                     "the replay could not be done; the replay is in ")


def test_an_unreadable_capture_cannot_be_replayed(replay, tmp_path):
    bad = tmp_path / "not-a-capture.jsonl"
    bad.write_text("hello\n")
    result = replay(bad, target=DEMO)
    assert result.returncode == 2
    assert result.stderr == (f"mcp-inspector: cannot replay: {bad} is not an mcp-inspector capture: its first line "
                             "is not JSON\n")


def test_without_a_target_the_recorded_command_is_shown_and_needs_yes(record, replay, tmp_path):
    capture = record(versioned(), [ECHO], "--env", "GREETING=hi")
    result = replay(capture, "--out", str(tmp_path / "r.jsonl"))
    assert result.returncode == 2
    assert versioned()[1] in result.stdout
    assert "environment overrides: GREETING=hi" in result.stdout
    assert result.stderr.strip().endswith("pass --yes to run it, or give a target: -- COMMAND ARGS, or --url URL")
    assert not (tmp_path / "r.jsonl").exists()  # nothing ran

    confirmed = replay(capture, "--out", str(tmp_path / "r.jsonl"), "--yes")
    assert confirmed.returncode == 0, confirmed.stdout + confirmed.stderr
    assert versioned()[1] in confirmed.stdout
    spawned = next(e for e in read_capture(tmp_path / "r.jsonl").events if e.data.get("what") == "spawned")
    assert spawned.data["argv"] == versioned() and spawned.data["env"] == {"GREETING": "hi"}


def test_a_redacted_recorded_target_is_not_rerun_even_with_yes(record, replay, tmp_path):
    capture = record(versioned(), [ECHO], "--env", "API_TOKEN=s3cret")
    result = replay(capture, "--yes")
    assert result.returncode == 2
    assert result.stderr == ("mcp-inspector: the capture's target was saved with secrets redacted "
                             "(API_TOKEN=[redacted]), so it cannot be rerun as recorded; give the target explicitly: "
                             "-- COMMAND ARGS, or --url URL\n")


def test_the_recorded_capture_is_left_exactly_as_it_was(record, replay, tmp_path):
    capture = record(versioned("--version", "1"), [TOOLS_LIST, GREET])
    before = (capture.read_bytes(), capture.stat().st_mtime_ns)
    replay(capture, "--out", str(tmp_path / "r.jsonl"), target=versioned("--version", "2"))
    assert (capture.read_bytes(), capture.stat().st_mtime_ns) == before


def test_out_may_not_be_the_capture_being_replayed(record, replay):
    capture = record(versioned(), [ECHO])
    before = capture.read_bytes()
    result = replay(capture, "--out", str(capture), target=versioned())
    assert result.returncode == 2
    assert "a replay never overwrites it" in result.stderr
    assert capture.read_bytes() == before


def test_the_replay_is_a_capture_that_names_its_source_and_marks_replayed_messages(record, replay, tmp_path):
    capture = record(versioned(), [TOOLS_LIST, ECHO])
    out = tmp_path / "r.jsonl"
    assert replay(capture, "--out", str(out), target=versioned()).returncode == 0
    source = read_capture(capture)
    loaded = read_capture(out)
    assert loaded.warnings == []
    assert loaded.header["replay_of"] == {"path": str(capture.resolve()), "created": source.header["created"]}
    recorded_sent = [e.seq for e in source.events if e.dir == Direction.C2S and e.kind == Kind.MESSAGE]
    assert [e.data.get("replay_of") for e in loaded.events if e.dir == Direction.C2S] == recorded_sent


def test_without_out_the_replay_goes_to_the_captures_folder_named_after_its_source(
        record, replay, own_captures_folder):
    capture = record(versioned(), [ECHO])
    result = replay(capture, target=versioned())
    assert result.returncode == 0
    saved = list(own_captures_folder.glob(f"{capture.stem}-replay-*.jsonl"))
    assert len(saved) == 1
    assert result.stdout.splitlines()[-1].endswith(f"; the replay is in {saved[0]}")
    second = replay(capture, target=versioned())
    assert len(list(own_captures_folder.glob(f"{capture.stem}-replay-*.jsonl"))) == 2, second.stdout


def test_a_sampling_request_is_answered_the_way_the_capture_answered_it(record, replay, tmp_path):
    capture = record(DEMO, [ASK_LLM], "--handshake", "legacy", "--answer", "sampling=text:Paris")
    out = tmp_path / "r.jsonl"
    result = replay(capture, "--out", str(out), target=DEMO)  # no --answer: the capture's answer is used
    assert result.returncode == 0, result.stdout + result.stderr
    events = read_capture(out).events
    answer = next(e.json() for e in events if e.dir == Direction.C2S and e.data.get("request_method") ==
                  "sampling/createMessage")
    assert answer["result"]["content"] == {"type": "text", "text": "Paris"}
    call = next(e.json() for e in events if e.dir == Direction.S2C and e.data.get("request_method") == "tools/call")
    assert call["result"]["content"] == [{"type": "text", "text": "Paris"}]


def test_a_sampling_request_the_capture_refused_is_refused_again_with_the_same_error(record, replay, tmp_path):
    capture = record(DEMO, [ASK_LLM], "--handshake", "legacy", "--answer", "sampling=error")
    out = tmp_path / "r.jsonl"
    assert replay(capture, "--out", str(out), target=DEMO).returncode == 0
    answer = next(e.json() for e in read_capture(out).events
                  if e.dir == Direction.C2S and e.data.get("request_method") == "sampling/createMessage")
    assert answer["error"] == {"code": -1, "message": "sampling declined by mcp-inspector (--answer sampling=error)"}


def test_a_cancelled_slow_call_is_cancelled_again_under_its_new_id_after_the_recorded_wait(record, replay, tmp_path):
    slow = {"method": "tools/call", "params": {"name": "slow_count", "arguments": {"count": 5, "delay_ms": 400}}}
    capture = record(DEMO, [ECHO, slow], "--handshake", "legacy", "--timeout", "1", expect=EXIT_TIMEOUT)
    out = tmp_path / "r.jsonl"
    result = replay(capture, "--out", str(out), "--timeout", "20", target=DEMO)
    assert result.returncode == 0, result.stdout + result.stderr
    events = read_capture(out).events
    call = next(e for e in events if e.method == "tools/call" and b"slow_count" in e.raw)
    cancel = next(e for e in events if e.method == "notifications/cancelled")
    assert cancel.json()["params"]["requestId"] == call.json()["id"]
    assert 0.8 < cancel.t - call.t < 10  # about the recorded second, not the 20 s --timeout
    assert not any(e.data.get("reply_to") == call.seq for e in events)


def test_a_bad_ignore_path_is_refused_before_anything_runs(record, replay):
    capture = record(versioned(), [ECHO])
    result = replay(capture, "--ignore", "result.content", target=versioned())
    assert result.returncode == 2
    assert result.stderr == ("mcp-inspector: --ignore: the path 'result.content' must start with $ (for example "
                             "$.result.content[0].text)\n")


def test_url_and_command_together_are_refused(record, replay):
    capture = record(versioned(), [ECHO])
    result = replay(capture, "--url", "http://127.0.0.1:9/mcp", target=versioned())
    assert result.returncode == 2
    assert "give either --url or a command after --, not both" in result.stderr


def test_a_capture_with_nothing_sent_has_nothing_to_replay(replay, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"format": "mcp-inspector-capture", "version": 1, "created": "x",
                                 "target": {"transport": "stdio", "argv": ["x"]}}) + "\n")
    result = replay(empty, target=DEMO)
    assert result.returncode == 2
    assert result.stderr == (f"mcp-inspector: cannot replay {empty}: the capture has no message sent to the server, "
                             "so there is nothing to replay\n")
